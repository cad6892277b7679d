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
	if !s.lit(`{"v":`) {
		return false
	}
	v, ok := s.int()
	if !ok || !s.lit(`,"kind":`) {
		return false
	}
	kind, ok := s.strIn(recentKind)
	if w.V, w.Kind = int(v), Kind(kind); !ok || (w.Kind != KindPriceSet && w.Kind != KindWithdrawal) {
		return false
	}
	if !s.lit(`,"registrar":`) {
		return false
	}
	if w.Registrar, ok = s.strIn(recentRegistrar); !ok || !s.lit(`,"zone":`) {
		return false
	}
	if w.Zone, ok = s.str(); !ok {
		return false
	}
	if w.Kind == KindPriceSet {
		ops := [NumOps]**OpPrice{&w.Register, &w.Renew, &w.Transfer}
		for op, key := range [NumOps]string{`,"register":`, `,"renew":`, `,"transfer":`} {
			if !s.lit(key) {
				continue
			}
			if *ops[op], ok = s.canonicalOp(Op(op)); !ok {
				return false
			}
		}
	}
	if !s.lit(`,"observed_at":`) {
		return false
	}
	if w.ObservedAt, ok = s.time(); !ok || !s.lit(`,"source":`) {
		return false
	}
	if w.Source, ok = s.strIn(recentSource); !ok {
		return false
	}
	if w.Kind == KindPriceSet && s.lit(`,"tax":`) {
		tax, ok := s.strIn(recentTax)
		if w.Tax = Tax(tax); !ok {
			return false
		}
	}
	return s.lit(`}`) && s.i == len(s.b)
}

// lit consumes x when the input continues with it.
func (s *scanner) lit(x string) bool {
	if len(s.b)-s.i >= len(x) && string(s.b[s.i:s.i+len(x)]) == x {
		s.i += len(x)
		return true
	}
	return false
}

// canonicalOp reads an operation as json.Marshal writes it (op reads any
// order).
func (s *scanner) canonicalOp(i Op) (*OpPrice, bool) {
	op := &s.ops.ops[i]
	*op = OpPrice{}
	if !s.lit(`{"regular":`) || !s.canonicalPrice(&op.Regular) {
		return nil, false
	}
	if s.lit(`,"promo":`) {
		p := &s.ops.promos[i]
		*p = Promo{}
		if !s.lit(`{"price":`) || !s.canonicalPrice(&p.Price) {
			return nil, false
		}
		if s.lit(`,"ends_at":`) {
			t := &s.ops.ends[i]
			var ok bool
			if *t, ok = s.time(); !ok {
				return nil, false
			}
			p.EndsAt = t
		}
		if !s.lit(`}`) {
			return nil, false
		}
		op.Promo = p
	}
	return op, s.lit(`}`)
}

// canonicalPrice reads a price as json.Marshal writes it.
func (s *scanner) canonicalPrice(p *Price) bool {
	if !s.lit(`{"amount":`) {
		return false
	}
	var ok bool
	if p.Amount, ok = s.int(); !ok || !s.lit(`,"currency":`) {
		return false
	}
	p.Currency, ok = s.strIn(recentCurrency)
	return ok && s.lit(`}`)
}
