package contracts

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"time"
)

// wire is the union of every kind's fields, so a document is decoded in one
// pass whatever its kind.
type wire struct {
	V          int               `json:"v"`
	Kind       Kind              `json:"kind"`
	Registrar  string            `json:"registrar"`
	Zone       string            `json:"zone"`
	Register   *OpPrice          `json:"register"`
	Renew      *OpPrice          `json:"renew"`
	Transfer   *OpPrice          `json:"transfer"`
	Unicode    string            `json:"unicode"`
	Type       string            `json:"type"`
	Categories []string          `json:"categories"`
	Base       string            `json:"base"`
	Date       string            `json:"date"`
	Rates      map[string]string `json:"rates"`
	ObservedAt time.Time         `json:"observed_at"`
	Source     string            `json:"source"`
	Tax        Tax               `json:"tax"`
	Change     Change            `json:"change"`
	Before     *Offer            `json:"before"`
	After      *Offer            `json:"after"`
}

// Decoding failures that are not validation errors.
var (
	ErrMalformedJSON = errors.New("malformed JSON")
	ErrUnknownKind   = errors.New("unknown event kind")
	ErrTooLarge      = errors.New("document too large")
)

// Decode reads one event document of any kind and validates it. Unknown
// fields are ignored, so producers may add fields without breaking readers.
//
// Documents in the exact shape this package writes are read by a
// specialised scanner (a query pod replays hundreds of thousands of them
// when it starts); anything else, such as escapes, unknown or repeated
// fields, or other key spellings, is read by encoding/json, so the meaning
// of a document never depends on which path read it.
func Decode(data []byte) (Event, error) {
	return decode(data, nil)
}

// maxInterned bounds a Decoder's string table, so that a stream of
// distinct garbage cannot grow it without end.
const maxInterned = 1 << 16

// Decoder decodes event documents like Decode and shares the strings that
// repeat across them (kinds, registrars, zones, currencies, sources), so a
// replay of hundreds of thousands of events allocates each once. A Decoder
// is not safe for concurrent use; give each goroutine its own.
type Decoder struct {
	strs map[string]string
	// recent is the last string interned for each field: a replay reads
	// one registrar's prices in a row, all from one source in one
	// currency, so most strings are the one before, and a comparison
	// saves a map lookup.
	recent [numRecent]string
	// observedText is the last observed_at read, quoted, and observed
	// its value (scanner.observed).
	observedText []byte
	observed     time.Time
	// change, blk and w are DecodeChange's storage, reused by each call.
	change *changeBlock
	blk    *priceBlock
	w      wire
}

// The fields whose last value a Decoder remembers, and the rest.
const (
	recentKind = iota
	recentRegistrar
	recentCurrency
	recentSource
	recentTax
	recentChange
	numRecent
	// recentOther is every other string, zones mostly: interned, never
	// remembered, since it differs from one document to the next.
	recentOther = numRecent
)

// Decode is the package-level Decode, with shared strings.
func (d *Decoder) Decode(data []byte) (Event, error) {
	return decode(data, d)
}

// DecodeChange decodes a change document like Decode, into storage the
// Decoder owns: the change it returns, and its offers, are valid only
// until the Decoder's next call. A query pod loads millions of changes
// when it starts, and keeps none of them as they are; this way loading
// them allocates nothing per document but what the fallback to
// encoding/json does. A document of another kind is ErrUnknownKind.
func (d *Decoder) DecodeChange(data []byte) (*PriceChange, error) {
	if len(data) > MaxEventSize {
		return nil, fmt.Errorf("%w: %d bytes, at most %d", ErrTooLarge, len(data), MaxEventSize)
	}
	if d.change == nil {
		d.change, d.blk = new(changeBlock), new(priceBlock)
	}
	*d.change, *d.blk, d.w = changeBlock{}, priceBlock{}, wire{}
	w := &d.w
	if _, fast := decodeFast(data, w, d, d.blk, d.change); !fast {
		*w = wire{}
		if err := json.Unmarshal(data, w); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrMalformedJSON, err)
		}
	}
	if w.Kind != KindPriceChange {
		return nil, fmt.Errorf("%w %q: want %q", ErrUnknownKind, w.Kind, KindPriceChange)
	}
	c := &d.change.change
	*c = PriceChange{V: w.V, Kind: w.Kind, Change: w.Change, Registrar: w.Registrar, Zone: w.Zone,
		Before: w.Before, After: w.After, ObservedAt: w.ObservedAt, Source: w.Source}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// priceBlock holds a price set and its operations in one allocation; the
// set's operation pointers point into it.
type priceBlock struct {
	set PriceSet
	ops opBlock
}

// opBlock holds the operations of a price set or an offer, with their
// promotions and their ends, where the scanner decodes them.
type opBlock struct {
	ops    [NumOps]OpPrice
	promos [NumOps]Promo
	ends   [NumOps]time.Time
}

// changeBlock is priceBlock for a change: the change, its two offers and
// their operations.
type changeBlock struct {
	change PriceChange
	offers [2]Offer
	ops    [2]opBlock
}

// Slot is storage an event is decoded into and used from, again and
// again (Decoder.DecodeInto): a replay of hundreds of thousands of events
// then allocates none for the price sets and withdrawals that make most
// of it. The zero value is ready to use.
type Slot struct {
	w   wire
	blk priceBlock
	wd  Withdrawal
}

// DecodeInto is Decode into s: a price set or withdrawal it returns lives
// in s, and is valid until s is decoded into again; zone metadata and
// rates, which readers keep, are allocated as Decode allocates them.
func (d *Decoder) DecodeInto(data []byte, s *Slot) (Event, error) {
	// Only the wire is cleared: the block's operations are cleared by the
	// scanner as it fills each (op, promo), and the set is assigned whole.
	// Clearing all 664 bytes per message was a tenth of a replay's decode.
	s.w = wire{}
	return decodeWith(data, d, &s.w, &s.blk, &s.wd)
}

func decode(data []byte, d *Decoder) (Event, error) {
	return decodeWith(data, d, new(wire), new(priceBlock), nil)
}

// decodeWith decodes into w and blk, both zero, and a withdrawal into wd
// (allocated when nil).
func decodeWith(data []byte, d *Decoder, w *wire, blk *priceBlock, wd *Withdrawal) (Event, error) {
	if len(data) > MaxEventSize {
		return nil, fmt.Errorf("%w: %d bytes, at most %d", ErrTooLarge, len(data), MaxEventSize)
	}
	var cblk *changeBlock
	fast := decodeCanonical(data, w, d, blk)
	if !fast {
		*w = wire{}
		cblk, fast = decodeFast(data, w, d, blk, nil)
	}
	if !fast {
		*w, *blk, cblk = wire{}, priceBlock{}, nil
		if err := json.Unmarshal(data, w); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrMalformedJSON, err)
		}
	}
	var ev Event
	switch w.Kind {
	case KindPriceSet:
		blk.set = PriceSet{V: w.V, Kind: w.Kind, Registrar: w.Registrar, Zone: w.Zone,
			Register: w.Register, Renew: w.Renew, Transfer: w.Transfer,
			ObservedAt: w.ObservedAt, Source: w.Source, Tax: w.Tax}
		ev = &blk.set
	case KindWithdrawal:
		if wd == nil {
			wd = new(Withdrawal)
		}
		*wd = Withdrawal{V: w.V, Kind: w.Kind, Registrar: w.Registrar, Zone: w.Zone,
			ObservedAt: w.ObservedAt, Source: w.Source}
		ev = wd
	case KindZoneMeta:
		ev = &ZoneMeta{V: w.V, Kind: w.Kind, Zone: w.Zone, Unicode: w.Unicode, Type: w.Type,
			Categories: w.Categories, ObservedAt: w.ObservedAt, Source: w.Source}
	case KindRates:
		ev = &Rates{V: w.V, Kind: w.Kind, Base: w.Base, Date: w.Date, Rates: w.Rates,
			ObservedAt: w.ObservedAt, Source: w.Source}
	case KindRegistrarStatus:
		// Rare (one per registrar and round) and wide: encoding/json
		// reads it whole.
		st := new(RegistrarStatus)
		if err := json.Unmarshal(data, st); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrMalformedJSON, err)
		}
		ev = st
	case KindPriceChange:
		if cblk == nil {
			cblk = new(changeBlock)
		}
		cblk.change = PriceChange{V: w.V, Kind: w.Kind, Change: w.Change, Registrar: w.Registrar, Zone: w.Zone,
			Before: w.Before, After: w.After, ObservedAt: w.ObservedAt, Source: w.Source}
		ev = &cblk.change
	default:
		return nil, fmt.Errorf("%w %q", ErrUnknownKind, w.Kind)
	}
	if err := ev.Validate(); err != nil {
		return nil, err
	}
	return ev, nil
}

// scanner reads the subset of JSON that json.Marshal writes for the event
// types. Every method reports false on anything outside that subset, and
// the caller then falls back to encoding/json.
type scanner struct {
	b   []byte
	i   int
	d   *Decoder
	ops *opBlock    // where the operations being read are decoded to
	blk *priceBlock // a price set's operations
	// cblk holds a change's offers, made when the first is read.
	cblk *changeBlock
}

func (s *scanner) ws() {
	if s.i < len(s.b) && s.b[s.i] > ' ' {
		return // json.Marshal writes no whitespace: the usual case
	}
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) byte(c byte) bool {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// raw reads a string without escapes or control characters and returns its
// bytes without the quotes; the caller copies what it keeps.
func (s *scanner) raw() ([]byte, bool) {
	if !s.byte('"') {
		return nil, false
	}
	start := s.i
	// Eight bytes at a time to the first that needs a look (the closing
	// quote, mostly): most keys and values are plain ASCII.
	for s.i+8 <= len(s.b) {
		if m := specialMask(binary.LittleEndian.Uint64(s.b[s.i:])); m != 0 {
			s.i += bits.TrailingZeros64(m) / 8
			break
		}
		s.i += 8
	}
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return s.b[start : s.i-1], true
		case c == '\\' || c < 0x20 || c >= 0x80:
			// Escapes and non-ASCII (which encoding/json checks for
			// valid UTF-8) go the slow way.
			return nil, false
		}
		s.i++
	}
	return nil, false
}

// specialMask has the high bit set of each of the eight bytes in x
// (little-endian) that may be a quote, a backslash, a control character or
// not ASCII: the bytes raw looks at. The lowest byte it marks is one of
// them (only bytes above it may be marked wrongly), and it misses none.
func specialMask(x uint64) uint64 {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	quote, slash := x^(lo*'"'), x^(lo*'\\')
	return ((quote-lo)&^quote | (slash-lo)&^slash | (x-lo*0x20)&^x | x) & hi
}

func (s *scanner) str() (string, bool) { return s.strIn(recentOther) }

// strIn is str for a field whose last value the decoder remembers.
func (s *scanner) strIn(field int) (string, bool) {
	if s.d != nil && field != recentOther {
		// The last value, quoted, is the usual next one: compared as
		// it stands, it needs no scan. Remembered values have no
		// quote, backslash, control character or non-ASCII byte (raw
		// read them), so these bytes are that very string.
		if r := s.d.recent[field]; r != "" {
			s.ws()
			if j := s.i + len(r) + 2; j <= len(s.b) && s.b[s.i] == '"' && s.b[j-1] == '"' && string(s.b[s.i+1:j-1]) == r {
				s.i = j
				return r, true
			}
		}
	}
	b, ok := s.raw()
	if !ok || s.d == nil {
		return string(b), ok
	}
	v, found := s.d.strs[string(b)]
	if !found {
		v = string(b)
		if len(s.d.strs) >= maxInterned {
			return v, true // neither shared nor remembered
		}
		if s.d.strs == nil {
			s.d.strs = make(map[string]string, 256)
		}
		s.d.strs[v] = v
	}
	if field != recentOther {
		s.d.recent[field] = v
	}
	return v, true
}

func (s *scanner) null() bool {
	s.ws()
	if len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "null" {
		s.i += 4
		return true
	}
	return false
}

// int reads an integer in JSON's canonical form that fits in int64: at
// most 18 digits (more may not fit; encoding/json then decides).
func (s *scanner) int() (int64, bool) {
	s.ws()
	b := s.b[s.i:]
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	// The loop's bound is the digits' limit too, so it checks one
	// thing per digit.
	digits := b[:min(len(b), 18)]
	var n int64
	i := 0
	for ; i < len(digits); i++ {
		c := digits[i] - '0'
		if c > 9 {
			break
		}
		n = n*10 + int64(c)
	}
	if i == 0 || (i > 1 && b[0] == '0') {
		return 0, false
	}
	if i < len(b) {
		if c := b[i]; c == '.' || c == 'e' || c == 'E' || c-'0' <= 9 {
			return 0, false
		}
	}
	s.i += i
	if neg {
		s.i++
		n = -n
	}
	return n, true
}

func (s *scanner) time() (time.Time, bool) {
	s.ws()
	start := s.i
	if _, ok := s.raw(); !ok {
		return time.Time{}, false
	}
	if t, ok := utcTime(s.b[start:s.i]); ok {
		return t, true
	}
	return s.anyTime(start)
}

// observed is time for observed_at, whose last text and value the
// decoder remembers: a source publishes a round's documents with one
// observed_at, so a replay reads the same time in a row, and the same
// bytes are the same time.
func (s *scanner) observed() (time.Time, bool) {
	if s.d == nil {
		return s.time()
	}
	s.ws()
	if q := s.d.observedText; len(q) > 0 && len(s.b)-s.i >= len(q) && string(s.b[s.i:s.i+len(q)]) == string(q) {
		s.i += len(q)
		return s.d.observed, true
	}
	start := s.i
	t, ok := s.time()
	if ok {
		s.d.observedText = append(s.d.observedText[:0], s.b[start:s.i]...)
		s.d.observed = t
	}
	return t, ok
}

// anyTime reads the quoted time that starts at start and ends at s.i
// with time.Time's own decoder.
func (s *scanner) anyTime(start int) (time.Time, bool) {
	var t time.Time
	// time.Time's own decoder, so both paths accept exactly the same forms.
	if err := t.UnmarshalJSON(s.b[start:s.i]); err != nil {
		return time.Time{}, false
	}
	return t, true
}

// utcTime reads a quoted time as json.Marshal writes a UTC one,
// "2026-11-20T08:00:00Z" or with up to nine digits of a second after a
// dot, and reports false on anything else, which the caller leaves to
// time.Time's decoder. Every state stream message carries one: through
// time.Time.UnmarshalJSON it was a sixth of a replay's decoding
// (BenchmarkReplayCPU). Its result is the one that decoder gives for the
// same text (TestUTCTime).
func utcTime(q []byte) (time.Time, bool) {
	const n = len(`"2006-01-02T15:04:05Z"`)
	if len(q) < n || q[0] != '"' || q[len(q)-2] != 'Z' || q[len(q)-1] != '"' ||
		q[5] != '-' || q[8] != '-' || q[11] != 'T' || q[14] != ':' || q[17] != ':' {
		return time.Time{}, false
	}
	_ = q[20]
	bad := false // a byte that is no digit
	d := func(i int) int {
		a, b := q[i]-'0', q[i+1]-'0'
		bad = bad || a > 9 || b > 9
		return int(a)*10 + int(b)
	}
	year, month, day := d(1)*100+d(3), d(6), d(9)
	hour, minute, sec := d(12), d(15), d(18)
	if bad || month < 1 || month > 12 || day < 1 || day > daysIn(month, year) || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	nsec := 0
	if frac := q[20 : len(q)-2]; len(frac) > 0 {
		if len(frac) < 2 || len(frac) > 10 || frac[0] != '.' {
			return time.Time{}, false
		}
		f, ok := digits(frac[1:])
		if !ok {
			return time.Time{}, false
		}
		for range 10 - len(frac) {
			f *= 10
		}
		nsec = f
	}
	unix := (daysSinceEpoch(year, month, day)*24+int64(hour))*3600 + int64(minute)*60 + int64(sec)
	return time.Unix(unix, int64(nsec)).UTC(), true
}

// digits reads b as a decimal number of digits only.
func digits(b []byte) (int, bool) {
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// daysIn is how many days month has in year (proleptic Gregorian).
func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysSinceEpoch is the days from 1970-01-01 to the date (Howard Hinnant's
// days_from_civil).
func daysSinceEpoch(year, month, day int) int64 {
	y := int64(year)
	if month <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	m := int64(month)
	if m > 2 {
		m -= 3
	} else {
		m += 9
	}
	doy := (153*m+2)/5 + int64(day) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// obj walks one object: begin consumes "{", and each next reads a key and
// its ":" and reports whether there is a field to read; the caller reads the
// value. Repeated keys are left to encoding/json, which merges them in ways
// not worth copying: callers mark each known key with once, which fails the
// object on a repeat.
type obj struct {
	s     *scanner
	seen  uint32
	first bool
	ok    bool // false once the object is known not to be fast-path JSON
	done  bool
}

func (s *scanner) begin() obj {
	return obj{s: s, first: true, ok: s.byte('{')}
}

func (o *obj) next() ([]byte, bool) {
	if !o.ok || o.done {
		return nil, false
	}
	s := o.s
	if o.first {
		o.first = false
		if s.byte('}') {
			o.done = true
			return nil, false
		}
	} else if !s.byte(',') {
		o.done = true
		o.ok = s.byte('}')
		return nil, false
	}
	key, ok := s.raw()
	if !ok || !s.byte(':') {
		o.ok = false
		return nil, false
	}
	return key, true
}

// once records the known key numbered bit, and fails the object if it
// was seen before.
func (o *obj) once(bit uint) bool {
	if o.seen&(1<<bit) != 0 {
		o.ok = false
		return false
	}
	o.seen |= 1 << bit
	return true
}

// fail abandons the fast path from inside a field.
func (o *obj) fail() { o.ok = false }

func (s *scanner) price(p *Price) bool {
	o := s.begin()
	for key, more := o.next(); more; key, more = o.next() {
		ok := false
		switch string(key) {
		case "amount":
			if o.once(0) {
				p.Amount, ok = s.int()
			}
		case "currency":
			if o.once(1) {
				p.Currency, ok = s.strIn(recentCurrency)
			}
		}
		if !ok {
			o.fail()
		}
	}
	return o.ok
}

func (s *scanner) promo(i Op) (*Promo, bool) {
	if s.null() {
		return nil, true
	}
	p := &s.ops.promos[i]
	*p = Promo{}
	o := s.begin()
	for key, more := o.next(); more; key, more = o.next() {
		ok := false
		switch string(key) {
		case "price":
			if o.once(0) {
				ok = s.price(&p.Price)
			}
		case "ends_at":
			if o.once(1) {
				if ok = s.null(); !ok {
					t := &s.ops.ends[i]
					*t, ok = s.time()
					p.EndsAt = t
				}
			}
		}
		if !ok {
			o.fail()
		}
	}
	return p, o.ok
}

func (s *scanner) op(i Op) (*OpPrice, bool) {
	if s.null() {
		return nil, true
	}
	op := &s.ops.ops[i]
	*op = OpPrice{}
	o := s.begin()
	for key, more := o.next(); more; key, more = o.next() {
		ok := false
		switch string(key) {
		case "regular":
			if o.once(0) {
				ok = s.price(&op.Regular)
			}
		case "promo":
			if o.once(1) {
				op.Promo, ok = s.promo(i)
			}
		}
		if !ok {
			o.fail()
		}
	}
	return op, o.ok
}

func (s *scanner) strings() ([]string, bool) {
	if s.null() {
		return nil, true
	}
	if !s.byte('[') {
		return nil, false
	}
	out := []string{}
	if s.byte(']') {
		return out, true
	}
	for {
		v, ok := s.str()
		if !ok {
			return nil, false
		}
		out = append(out, v)
		if s.byte(',') {
			continue
		}
		return out, s.byte(']')
	}
}

func (s *scanner) stringMap() (map[string]string, bool) {
	if s.null() {
		return nil, true
	}
	m := map[string]string{}
	o := s.begin()
	for key, more := o.next(); more; key, more = o.next() {
		if _, dup := m[string(key)]; dup {
			o.fail()
			break
		}
		v, ok := s.str()
		if !ok {
			o.fail()
		}
		m[string(key)] = v
	}
	return m, o.ok
}

// offer reads one side of a change (side 0 before, 1 after) into the
// change's block.
func (s *scanner) offer(side int) (*Offer, bool) {
	if s.null() {
		return nil, true
	}
	if s.cblk == nil {
		s.cblk = new(changeBlock)
	}
	off := &s.cblk.offers[side]
	outer := s.ops
	s.ops = &s.cblk.ops[side]
	defer func() { s.ops = outer }()
	o := s.begin()
	for key, more := o.next(); more; key, more = o.next() {
		ok := false
		switch string(key) {
		case "register":
			if o.once(0) {
				off.Register, ok = s.op(OpRegister)
			}
		case "renew":
			if o.once(1) {
				off.Renew, ok = s.op(OpRenew)
			}
		case "transfer":
			if o.once(2) {
				off.Transfer, ok = s.op(OpTransfer)
			}
		case "tax":
			if o.once(3) {
				var t string
				t, ok = s.strIn(recentTax)
				off.Tax = Tax(t)
			}
		}
		if !ok {
			o.fail()
		}
	}
	return off, o.ok
}

// decodeFast fills w from a document in the shape json.Marshal writes. It
// reports false, leaving w in any state, when the document needs
// encoding/json: an unknown key, a non-canonical number, an escape, a
// repeated key, or anything malformed. A change's offers are decoded into
// the block it returns: cblk, or one it makes (nil when the document has
// none).
func decodeFast(data []byte, w *wire, d *Decoder, blk *priceBlock, cblk *changeBlock) (*changeBlock, bool) {
	s := &scanner{b: data, d: d, blk: blk, ops: &blk.ops, cblk: cblk}
	o := s.begin()
	for key, more := o.next(); more; key, more = o.next() {
		ok := false
		switch string(key) {
		case "v":
			if o.once(0) {
				var v int64
				v, ok = s.int()
				w.V = int(v)
			}
		case "kind":
			if o.once(1) {
				var k string
				k, ok = s.strIn(recentKind)
				w.Kind = Kind(k)
			}
		case "registrar":
			if o.once(2) {
				w.Registrar, ok = s.strIn(recentRegistrar)
			}
		case "zone":
			if o.once(3) {
				w.Zone, ok = s.str()
			}
		case "register":
			if o.once(4) {
				w.Register, ok = s.op(OpRegister)
			}
		case "renew":
			if o.once(5) {
				w.Renew, ok = s.op(OpRenew)
			}
		case "transfer":
			if o.once(6) {
				w.Transfer, ok = s.op(OpTransfer)
			}
		case "observed_at":
			if o.once(13) {
				w.ObservedAt, ok = s.observed()
			}
		case "source":
			if o.once(14) {
				w.Source, ok = s.strIn(recentSource)
			}
		case "tax":
			if o.once(15) {
				var t string
				t, ok = s.strIn(recentTax)
				w.Tax = Tax(t)
			}
		default:
			ok = s.otherField(key, &o, w)
		}
		if !ok {
			o.fail()
		}
	}
	s.ws()
	return s.cblk, o.ok && s.i == len(s.b)
}

// otherField reads a key of a document that is no price set: zone
// metadata, rates, a change. decodeFast reads a price set's keys itself,
// so that the bulk of a replay makes no call per key.
func (s *scanner) otherField(key []byte, o *obj, w *wire) bool {
	ok := false
	switch string(key) {
	case "unicode":
		if o.once(7) {
			w.Unicode, ok = s.str()
		}
	case "type":
		if o.once(8) {
			w.Type, ok = s.str()
		}
	case "categories":
		if o.once(9) {
			w.Categories, ok = s.strings()
		}
	case "base":
		if o.once(10) {
			w.Base, ok = s.str()
		}
	case "date":
		if o.once(11) {
			w.Date, ok = s.str()
		}
	case "rates":
		if o.once(12) {
			w.Rates, ok = s.stringMap()
		}
	case "change":
		if o.once(16) {
			var c string
			c, ok = s.strIn(recentChange)
			w.Change = Change(c)
		}
	case "before":
		if o.once(17) {
			w.Before, ok = s.offer(0)
		}
	case "after":
		if o.once(18) {
			w.After, ok = s.offer(1)
		}
	}
	return ok
}
