package contracts_test

import (
	"testing"

	"github.com/zoneprice/zoneprice/contracts"
)

func TestOps(t *testing.T) {
	names := []string{"register", "renew", "transfer"}
	for i, op := range contracts.Ops {
		if got := op.String(); got != names[i] {
			t.Errorf("Ops[%d] = %q, want %q", i, got, names[i])
		}
		if back, ok := contracts.ParseOp(op.String()); !ok || back != op {
			t.Errorf("ParseOp(%q) = %v, %v; want %v", op.String(), back, ok, op)
		}
	}
	if _, ok := contracts.ParseOp("restore"); ok {
		t.Error(`ParseOp("restore") succeeded, want no such operation`)
	}
}

func TestPriceSetOps(t *testing.T) {
	var ps contracts.PriceSet
	prices := [contracts.NumOps]*contracts.OpPrice{}
	for _, op := range contracts.Ops {
		prices[op] = &contracts.OpPrice{Regular: contracts.Price{Amount: int64(100 + op), Currency: "USD"}}
		ps.SetOp(op, prices[op])
	}
	if ps.Register != prices[contracts.OpRegister] || ps.Renew != prices[contracts.OpRenew] || ps.Transfer != prices[contracts.OpTransfer] {
		t.Fatalf("SetOp put the prices in the wrong fields: %+v", ps)
	}
	if got := ps.Ops(); got != prices {
		t.Errorf("Ops() = %v, want %v", got, prices)
	}
	for _, op := range contracts.Ops {
		if got := ps.Op(op); got != prices[op] {
			t.Errorf("Op(%v) = %v, want %v", op, got, prices[op])
		}
	}
}
