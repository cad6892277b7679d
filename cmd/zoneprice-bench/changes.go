package main

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/ingest/sample"
)

// The history data set: years of changes to the generated prices, shaped
// like what ingesters record. Per price subject (registrar and zone) a first
// change about historyYears back, added or known, then the zone's wholesale
// increases as the registrar passes them on, the registrar's promotion
// campaigns the subject takes part in (a change when each starts and one
// when it ends), now and then a withdrawal and a re-addition, and, where the
// current price set has a promotion, its start last: every subject's last
// change leaves exactly the offer the state stream holds. Changes are
// observed in the registrar's hourly rounds, so one round's changes share
// an observed_at, and they are published in observed_at order.
//
// Every choice is a draw from a generator seeded with historySeed and the
// subject, registrar or zone, so the data set is the same on every run,
// relative to the day it ends on.
const (
	historySeed  = 12 // issue 12
	historyYears = 3
	// knownPercent of the subjects start with a known period: priced
	// before the history began.
	knownPercent = 20
	// withdrawPercent of the subjects are withdrawn once, for a week to
	// four months, and added again.
	withdrawPercent = 3
	// increasePercent is the chance that a zone's wholesale price goes up
	// in a year, and followPercent that a registrar passes it on.
	increasePercent = 60
	followPercent   = 90
	// joinPermille is the chance that a subject takes part in one of its
	// registrar's campaigns, before the count is trimmed to the one asked.
	joinPermille = 280
)

// No promotion, and the current price set's own, as offerState.promo.
const (
	noPromo      = -1
	currentPromo = -2
)

// offerState names one offer of a subject without holding it: the price
// level (how many increases it has had), the registration promotion
// running (a campaign of its registrar, noPromo or currentPromo), and
// whether it is offered at all.
type offerState struct {
	level   uint8
	offered bool
	promo   int16
}

// changeRec is one generated change; its offers are computed when it is
// encoded.
type changeRec struct {
	at            int64 // observed_at, Unix seconds
	subject       int32 // index in historySet.prices
	change        uint8 // index in changeKinds
	before, after offerState
}

var changeKinds = [...]contracts.Change{contracts.ChangeAdded, contracts.ChangeChanged, contracts.ChangeWithdrawn, contracts.ChangeKnown}

const (
	kindAdded uint8 = iota
	kindChanged
	kindWithdrawn
	kindKnown
)

// campaign is a registrar's promotion on registration, across the zones
// that take part, between two hours.
type campaign struct {
	start, end int64 // hours since the Unix epoch
	announced  bool  // the promotion says when it ends (ends_at)
	share      int64 // the promotional price, percent of the regular one
}

// historySet is the generated history of prices: its changes in stream
// order and what encoding them needs.
type historySet struct {
	prices    []contracts.PriceSet // the current prices; subject i is prices[i]
	reg, zone []int32              // by subject: its registrar's and zone's index
	campaigns [][]campaign         // by registrar
	offsets   []int64              // by registrar: seconds past the hour its rounds observe at
	levels    []uint8              // by subject: the increases it had, its current level
	recs      []changeRec          // in stream order
	kinds     [len(changeKinds)]int
}

// plan is one subject's history before it becomes changes.
type plan struct {
	first     int64 // hour of its first change
	known     bool
	incs      []int64 // hours of its price increases
	camps     []int16 // its registrar's campaigns it takes part in
	out, back int64   // hours it is withdrawn and added again; 0 when never
	final     int64   // hour its current promotion starts; 0 without one
	end       int64   // hour its other changes end by
}

// timeline is the hours the history spans and the events that every
// subject of a registrar or a zone shares.
type timeline struct {
	begin, horizon int64
	increases      [][]int64 // by zone: hours of wholesale increases
	lags           []int64   // by registrar: hours before it passes an increase on
}

// generateHistory shapes n changes of prices, the last of them before end.
func generateHistory(prices []contracts.PriceSet, n int, end time.Time) (*historySet, error) {
	h := &historySet{prices: prices, reg: make([]int32, len(prices)), zone: make([]int32, len(prices)), levels: make([]uint8, len(prices))}
	regs, zones := map[string]int32{}, map[string]int32{}
	for s := range prices {
		h.reg[s] = index(regs, prices[s].Registrar)
		h.zone[s] = index(zones, prices[s].Zone)
	}
	tl := &timeline{begin: end.AddDate(-historyYears, 0, 0).Unix() / 3600, horizon: end.Unix()/3600 - 24}
	for z := range len(zones) {
		rng := rand.New(rand.NewPCG(historySeed, 2<<32|uint64(z)))
		day := rng.Int64N(365)
		var incs []int64
		for y := range int64(historyYears) {
			if rng.IntN(100) < increasePercent {
				incs = append(incs, tl.begin+24*(y*365+day))
			}
		}
		tl.increases = append(tl.increases, incs)
	}
	for r := range len(regs) {
		rng := rand.New(rand.NewPCG(historySeed, 1<<32|uint64(r)))
		h.offsets = append(h.offsets, 60+rng.Int64N(3480))
		tl.lags = append(tl.lags, 24*rng.Int64N(31))
		var camps []campaign
		for at := tl.begin + 24*(10+rng.Int64N(50)); ; {
			days := 30 + rng.Int64N(61)
			if at+24*days >= tl.horizon {
				break
			}
			camps = append(camps, campaign{start: at, end: at + 24*days, announced: rng.IntN(100) < 70, share: 40 + rng.Int64N(41)})
			at += 24 * (days + 14 + rng.Int64N(62))
		}
		h.campaigns = append(h.campaigns, camps)
	}

	plans := make([]plan, len(prices))
	var scratch []op
	total := 0
	for s := range plans {
		h.plan(tl, int32(s), &plans[s])
		total += h.simulate(int32(s), &plans[s], &scratch, nil)
	}
	if err := h.trim(tl, plans, total, n, &scratch); err != nil {
		return nil, err
	}
	h.recs = make([]changeRec, 0, n)
	for s := range plans {
		h.levels[s] = uint8(len(plans[s].incs))
		h.simulate(int32(s), &plans[s], &scratch, func(c changeRec) {
			h.recs = append(h.recs, c)
			h.kinds[c.change]++
		})
	}
	// A subject's changes are in distinct rounds, so sorting by time
	// keeps each subject's in order.
	slices.SortFunc(h.recs, func(a, b changeRec) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.subject, b.subject))
	})
	return h, nil
}

func index(m map[string]int32, k string) int32 {
	i, ok := m[k]
	if !ok {
		i = int32(len(m))
		m[k] = i
	}
	return i
}

// plan draws subject s's history.
func (h *historySet) plan(tl *timeline, s int32, p *plan) {
	rng := rand.New(rand.NewPCG(historySeed, uint64(s)))
	r := h.reg[s]
	*p = plan{first: tl.begin + rng.Int64N(30*24), known: rng.IntN(100) < knownPercent, end: tl.horizon}
	if h.prices[s].Register.Promo != nil {
		p.final = tl.horizon - 24*(1+rng.Int64N(25))
		p.end = p.final - 48
	}
	if rng.IntN(100) < withdrawPercent {
		out := p.first + 24*(30+rng.Int64N(900))
		back := out + 24*(7+rng.Int64N(113))
		if back < p.end-24 {
			p.out, p.back = out, back
		}
	}
	for _, at := range tl.increases[h.zone[s]] {
		if rng.IntN(100) >= followPercent {
			continue
		}
		if at += tl.lags[r] + rng.Int64N(48); at > p.first+24 && at < p.end {
			p.incs = append(p.incs, at)
		}
	}
	for c, camp := range h.campaigns[r] {
		if rng.IntN(1000) < joinPermille && p.fits(camp) {
			p.camps = append(p.camps, int16(c))
		}
	}
}

// fits reports whether the subject can take part in a campaign: after its
// first change, before its end, and not while it is withdrawn.
func (p *plan) fits(c campaign) bool {
	if c.start <= p.first+24 || c.end >= p.end {
		return false
	}
	return p.out == 0 || c.end < p.out-24 || c.start > p.back+24
}

// trim adds and removes campaigns and increases of subjects drawn at
// random until the plans make exactly n changes.
func (h *historySet) trim(tl *timeline, plans []plan, total, n int, scratch *[]op) error {
	rng := rand.New(rand.NewPCG(historySeed, 3<<32))
	for tries := 0; total != n; tries++ {
		if tries > 100*len(plans)+10*max(n-total, total-n) {
			return fmt.Errorf("-changes: cannot shape %d changes over %d prices (have %d)", n, len(plans), total)
		}
		s := rng.IntN(len(plans))
		p := &plans[s]
		was := h.simulate(int32(s), p, scratch, nil)
		switch diff := total - n; {
		case diff >= 2 && len(p.camps) > 0:
			i := rng.IntN(len(p.camps))
			p.camps = slices.Delete(p.camps, i, i+1)
		case diff >= 1 && len(p.incs) > 0:
			p.incs = p.incs[:len(p.incs)-1]
		case diff <= -2:
			camps := h.campaigns[h.reg[s]]
			if len(camps) == 0 {
				continue
			}
			c := int16(rng.IntN(len(camps)))
			if slices.Contains(p.camps, c) || !p.fits(camps[c]) {
				continue
			}
			p.camps = append(p.camps, c)
		case diff == -1:
			at := p.first + 24 + 1 + rng.Int64N(max(p.end-p.first-26, 1))
			if p.out != 0 && at >= p.out-24 && at <= p.back+24 || len(p.incs) >= 250 {
				continue
			}
			p.incs = append(p.incs, at)
		default:
			continue
		}
		total += h.simulate(int32(s), p, scratch, nil) - was
	}
	return nil
}

// op is one step of a subject's plan.
type op struct {
	hour int64
	kind uint8 // the op constants, in the order ops of one hour go
	camp int16
}

const (
	opFirst = iota
	opIncrease
	opPromoStart
	opPromoEnd
	opWithdraw
	opAdd
	opFinal
)

// simulate walks subject s's plan, calls emit (if any) with each change it
// makes, and returns how many it made.
func (h *historySet) simulate(s int32, p *plan, scratch *[]op, emit func(changeRec)) int {
	ops := append((*scratch)[:0], op{hour: p.first, kind: opFirst})
	for _, at := range p.incs {
		ops = append(ops, op{hour: at, kind: opIncrease})
	}
	camps := h.campaigns[h.reg[s]]
	for _, c := range p.camps {
		ops = append(ops, op{hour: camps[c].start, kind: opPromoStart, camp: c}, op{hour: camps[c].end, kind: opPromoEnd, camp: c})
	}
	if p.out != 0 {
		ops = append(ops, op{hour: p.out, kind: opWithdraw}, op{hour: p.back, kind: opAdd})
	}
	if p.final != 0 {
		ops = append(ops, op{hour: p.final, kind: opFinal})
	}
	slices.SortFunc(ops, func(a, b op) int { return cmp.Or(cmp.Compare(a.hour, b.hour), cmp.Compare(a.kind, b.kind)) })
	// An ingester records at most one change of a subject per round.
	for i := 1; i < len(ops); i++ {
		ops[i].hour = max(ops[i].hour, ops[i-1].hour+1)
	}
	*scratch = ops

	n := 0
	put := func(hour int64, change uint8, before, after offerState) {
		n++
		if emit != nil {
			emit(changeRec{at: hour*3600 + h.offsets[h.reg[s]], subject: s, change: change, before: before, after: after})
		}
	}
	cur := offerState{offered: true, promo: noPromo}
	for _, o := range ops {
		prev := cur
		switch o.kind {
		case opFirst:
			first := kindAdded
			if p.known {
				first = kindKnown
			}
			put(o.hour, first, offerState{}, cur)
			continue
		case opIncrease:
			cur.level++
			if !cur.offered {
				continue // the re-addition shows it
			}
		case opPromoStart:
			cur.promo = o.camp
		case opPromoEnd:
			cur.promo = noPromo
		case opWithdraw:
			cur.offered = false
			put(o.hour, kindWithdrawn, prev, offerState{})
			continue
		case opAdd:
			cur.offered = true
			put(o.hour, kindAdded, offerState{}, cur)
			continue
		case opFinal:
			cur.promo = currentPromo
		}
		put(o.hour, kindChanged, prev, cur)
	}
	return n
}

// increase is the percentage by which subject s's regular prices went up
// to reach level.
func increase(s int32, level uint8) int64 {
	return 3 + int64(splitmix(uint64(s)<<8|uint64(level))%10)
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15 + historySeed
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// offer is the offer st names for subject s: the current price set's
// regular prices taken back down the increases it had since, and the
// promotion running.
func (h *historySet) offer(s int32, st offerState) *contracts.Offer {
	if !st.offered {
		return nil
	}
	ps := &h.prices[s]
	cur := ps.Offer()
	ops := cur.Ops()
	var amounts [contracts.NumOps]int64
	for op, p := range ops {
		if p != nil {
			amounts[op] = p.Regular.Amount
		}
	}
	for level := h.levels[s]; level > st.level; level-- {
		pct := increase(s, level)
		for op, a := range amounts {
			amounts[op] = max(min(a*100/(100+pct), a-1), 1)
		}
	}
	at := func(op contracts.Op) *contracts.OpPrice {
		if ops[op] == nil {
			return nil
		}
		return &contracts.OpPrice{Regular: contracts.Price{Amount: amounts[op], Currency: ops[op].Regular.Currency}}
	}
	o := &contracts.Offer{Register: at(contracts.OpRegister), Renew: at(contracts.OpRenew), Transfer: at(contracts.OpTransfer), Tax: cur.Tax}
	switch {
	case st.promo == currentPromo:
		o.Register.Promo = ps.Register.Promo
	case st.promo >= 0:
		c := h.campaigns[h.reg[s]][st.promo]
		share := c.share + int64(splitmix(uint64(s)<<16|uint64(st.promo))%11) - 5
		regular := o.Register.Regular
		promo := &contracts.Promo{Price: contracts.Price{Amount: max(min(regular.Amount*share/100, regular.Amount-1), 0), Currency: regular.Currency}}
		if c.announced {
			ends := time.Unix(c.end*3600, 0).UTC()
			promo.EndsAt = &ends
		}
		o.Register.Promo = promo
	}
	return o
}

// change is the i-th change in stream order, as its document.
func (h *historySet) change(i int) *contracts.PriceChange {
	c := &h.recs[i]
	ps := &h.prices[c.subject]
	return &contracts.PriceChange{
		V: contracts.SchemaVersion, Kind: contracts.KindPriceChange, Change: changeKinds[c.change],
		Registrar: ps.Registrar, Zone: ps.Zone,
		Before: h.offer(c.subject, c.before), After: h.offer(c.subject, c.after),
		ObservedAt: time.Unix(c.at, 0).UTC(), Source: sample.SourceName,
	}
}

// historyBatch is how many changes are encoded ahead of the publisher.
const historyBatch = 16384

// historyResult is how the history data set was made and published.
type historyResult struct {
	changes   int
	subjects  int
	kinds     [len(changeKinds)]int
	from, to  time.Time // observed_at of the first and last change
	generated time.Duration
	published time.Duration // encoding included, as it overlaps
}

// historyProbe is a subject the freshness run changes on the history
// stream, and the offer its last change left.
type historyProbe struct {
	registrar, zone string
	offer           *contracts.Offer
}

// publishHistory generates the history data set for the price sets the
// state stream holds and publishes it on the history stream, encoding the
// next batch while the last one is being published.
func (b *bench) publishHistory(ctx context.Context, env *natsEnv, res *results) error {
	hr := &historyResult{}
	res.history = hr
	start := time.Now()
	prices, err := sample.Generate(env.zones, b.cfg.registrars, start.UTC())
	if err != nil {
		return err
	}
	day := start.UTC().Truncate(24 * time.Hour)
	h, err := generateHistory(prices, b.cfg.changes, day)
	if err != nil {
		return err
	}
	hr.generated = time.Since(start)
	hr.changes, hr.subjects, hr.kinds = len(h.recs), len(prices), h.kinds
	hr.from, hr.to = time.Unix(h.recs[0].at, 0).UTC(), time.Unix(h.recs[len(h.recs)-1].at, 0).UTC()
	for i := range prices {
		if prices[i].Registrar == env.registrar && prices[i].Zone == env.zones[2].ASCII {
			env.probe = &historyProbe{registrar: env.registrar, zone: prices[i].Zone, offer: prices[i].Offer()}
		}
	}
	b.log.Info("publishing history", "changes", hr.changes, "subjects", hr.subjects, "from", hr.from.Format(time.DateOnly),
		"generated_in", hr.generated.Round(time.Millisecond))

	start = time.Now()
	batches := make(chan []contracts.Message, 2)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		defer close(batches)
		for lo := 0; lo < len(h.recs); lo += historyBatch {
			msgs := make([]contracts.Message, min(historyBatch, len(h.recs)-lo))
			for i := range msgs {
				var err error
				if msgs[i], err = contracts.Encode(h.change(lo + i)); err != nil {
					return fmt.Errorf("change %d: %w", lo+i, err)
				}
			}
			select {
			case batches <- msgs:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		return nil
	})
	published := 0
	g.Go(func() error {
		pub := bus.NewPublisher(env.js)
		for msgs := range batches {
			n, _, err := pub.Send(gctx, msgs, publishWindow)
			published += n
			if err != nil {
				return fmt.Errorf("publish the history: %w", err)
			}
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return err
	}
	hr.published = time.Since(start)
	s, err := env.js.Stream(ctx, contracts.HistoryStream)
	if err != nil {
		return err
	}
	if got := s.CachedInfo().State.Msgs; published != hr.changes || got != uint64(hr.changes) {
		return fmt.Errorf("published %d of %d changes; the history stream holds %d", published, hr.changes, got)
	}
	env.changes = uint64(hr.changes)
	b.log.Info("published history", "changes", hr.changes, "took", hr.published.Round(time.Millisecond))
	return nil
}
