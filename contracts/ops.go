package contracts

import "strconv"

// Op is one of the operations a registrar prices for a zone. Every
// document and response lists them in the order of Ops.
type Op uint8

// The operations.
const (
	OpRegister Op = iota
	OpRenew
	OpTransfer
)

// NumOps is how many operations there are.
const NumOps = 3

// Ops are the operations in the order documents and responses list them.
var Ops = [NumOps]Op{OpRegister, OpRenew, OpTransfer}

var opNames = [NumOps]string{"register", "renew", "transfer"}

// String is the operation's name as documents and the API spell it.
func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return "Op(" + strconv.Itoa(int(o)) + ")"
}

// ParseOp reads an operation's name.
func ParseOp(name string) (Op, bool) {
	for i, n := range opNames {
		if n == name {
			return Op(i), true
		}
	}
	return 0, false
}

// Ops returns the set's price of each operation, in Ops order; nil where
// the registrar does not offer it.
func (p *PriceSet) Ops() [NumOps]*OpPrice {
	return [NumOps]*OpPrice{p.Register, p.Renew, p.Transfer}
}

// Op returns the set's price of one operation, nil when it is not offered.
func (p *PriceSet) Op(op Op) *OpPrice { return *p.opField(op) }

// SetOp sets the set's price of one operation; nil withdraws it.
func (p *PriceSet) SetOp(op Op, price *OpPrice) { *p.opField(op) = price }

func (p *PriceSet) opField(op Op) **OpPrice {
	switch op {
	case OpRenew:
		return &p.Renew
	case OpTransfer:
		return &p.Transfer
	}
	return &p.Register
}
