package contracts

// decodeCanonical reads a price set or a withdrawal laid out exactly as
// json.Marshal writes one: its keys in the struct's order, no whitespace.
// Every state stream message a replay reads is one of these, and matching
// each key as a literal instead of scanning it and switching on it makes
// the replay's decoding about a third cheaper (BenchmarkReplayCPU). It
// reports false on anything else, leaving w and the operations in any
// state: the caller clears w and reads the document with decodeFast,
// which takes any order.
func decodeCanonical(data []byte, w *wire, d *Decoder, blk *priceBlock) bool {
	s := scanner{b: data, d: d, blk: blk, ops: &blk.ops}
	if !s.lit(keyV, string(s.peek(len(keyV))) == keyV) {
		return false
	}
	v, ok := s.int()
	if !ok || !s.lit(keyKind, string(s.peek(len(keyKind))) == keyKind) {
		return false
	}
	kind, ok := s.strIn(recentKind)
	if w.V, w.Kind = int(v), Kind(kind); !ok || (w.Kind != KindPriceSet && w.Kind != KindWithdrawal) {
		return false
	}
	if !s.lit(keyRegistrar, string(s.peek(len(keyRegistrar))) == keyRegistrar) {
		return false
	}
	if w.Registrar, ok = s.strIn(recentRegistrar); !ok || !s.lit(keyZone, string(s.peek(len(keyZone))) == keyZone) {
		return false
	}
	if w.Zone, ok = s.str(); !ok {
		return false
	}
	if w.Kind == KindPriceSet && !s.canonicalOps(w) {
		return false
	}
	if !s.lit(keyObservedAt, string(s.peek(len(keyObservedAt))) == keyObservedAt) {
		return false
	}
	if w.ObservedAt, ok = s.observed(); !ok || !s.lit(keySource, string(s.peek(len(keySource))) == keySource) {
		return false
	}
	if w.Source, ok = s.strIn(recentSource); !ok {
		return false
	}
	if w.Kind == KindPriceSet && s.lit(keyTax, string(s.peek(len(keyTax))) == keyTax) {
		tax, ok := s.strIn(recentTax)
		if w.Tax = Tax(tax); !ok {
			return false
		}
	}
	return s.lit(closing, string(s.peek(len(closing))) == closing) && s.i == len(s.b)
}

// The keys of a document as json.Marshal writes it, with what stands
// between them.
const (
	keyV          = `{"v":`
	keyKind       = `,"kind":`
	keyRegistrar  = `,"registrar":`
	keyZone       = `,"zone":`
	keyRegister   = `,"register":`
	keyRenew      = `,"renew":`
	keyTransfer   = `,"transfer":`
	keyObservedAt = `,"observed_at":`
	keySource     = `,"source":`
	keyTax        = `,"tax":`
	keyRegular    = `{"regular":`
	keyPromo      = `,"promo":`
	keyPrice      = `{"price":`
	keyEndsAt     = `,"ends_at":`
	keyAmount     = `{"amount":`
	keyCurrency   = `,"currency":`
	closing       = `}`
)

// lit consumes x when matched, the caller's comparison of the input with
// it: string(s.peek(len(x))) == x, written where x is a constant, which
// the compiler then compares inline instead of calling memequal (passed
// in as a parameter, x would not be a constant to it). A replay compares
// some twenty keys per document, and the calls were a seventh of its
// decoding (BenchmarkReplayCPU under callgrind: 79 million instructions
// of 1.2 billion).
func (s *scanner) lit(x string, matched bool) bool {
	if matched {
		s.i += len(x)
	}
	return matched
}

// peek is the next n bytes of the input, nil when fewer are left.
func (s *scanner) peek(n int) []byte {
	if len(s.b)-s.i < n {
		return nil
	}
	return s.b[s.i : s.i+n]
}

// canonicalOps reads a price set's operations, each there or not, in
// json.Marshal's order.
func (s *scanner) canonicalOps(w *wire) bool {
	ok := true
	if s.lit(keyRegister, string(s.peek(len(keyRegister))) == keyRegister) {
		w.Register, ok = s.canonicalOp(OpRegister)
	}
	if ok && s.lit(keyRenew, string(s.peek(len(keyRenew))) == keyRenew) {
		w.Renew, ok = s.canonicalOp(OpRenew)
	}
	if ok && s.lit(keyTransfer, string(s.peek(len(keyTransfer))) == keyTransfer) {
		w.Transfer, ok = s.canonicalOp(OpTransfer)
	}
	return ok
}

// canonicalOp reads an operation as json.Marshal writes it (op reads any
// order).
func (s *scanner) canonicalOp(i Op) (*OpPrice, bool) {
	op := &s.ops.ops[i]
	*op = OpPrice{}
	if !s.lit(keyRegular, string(s.peek(len(keyRegular))) == keyRegular) || !s.canonicalPrice(&op.Regular) {
		return nil, false
	}
	if s.lit(keyPromo, string(s.peek(len(keyPromo))) == keyPromo) {
		p := &s.ops.promos[i]
		*p = Promo{}
		if !s.lit(keyPrice, string(s.peek(len(keyPrice))) == keyPrice) || !s.canonicalPrice(&p.Price) {
			return nil, false
		}
		if s.lit(keyEndsAt, string(s.peek(len(keyEndsAt))) == keyEndsAt) {
			t := &s.ops.ends[i]
			var ok bool
			if *t, ok = s.time(); !ok {
				return nil, false
			}
			p.EndsAt = t
		}
		if !s.lit(closing, string(s.peek(len(closing))) == closing) {
			return nil, false
		}
		op.Promo = p
	}
	return op, s.lit(closing, string(s.peek(len(closing))) == closing)
}

// canonicalPrice reads a price as json.Marshal writes it.
func (s *scanner) canonicalPrice(p *Price) bool {
	if !s.lit(keyAmount, string(s.peek(len(keyAmount))) == keyAmount) {
		return false
	}
	var ok bool
	if p.Amount, ok = s.int(); !ok || !s.lit(keyCurrency, string(s.peek(len(keyCurrency))) == keyCurrency) {
		return false
	}
	p.Currency, ok = s.strIn(recentCurrency)
	return ok && s.lit(closing, string(s.peek(len(closing))) == closing)
}
