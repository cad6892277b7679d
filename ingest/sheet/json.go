package sheet

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/zoneprice/zoneprice/contracts"
)

// jsonRow is one entry of a JSON sheet's "prices". Fields stay raw so that
// a field of the wrong type costs only its row, and a number is read by its
// literal digits.
type jsonRow struct {
	Registrar         json.RawMessage `json:"registrar"`
	Zone              json.RawMessage `json:"zone"`
	Currency          json.RawMessage `json:"currency"`
	Register          json.RawMessage `json:"register"`
	RegisterPromo     json.RawMessage `json:"register_promo"`
	RegisterPromoEnds json.RawMessage `json:"register_promo_ends"`
	Renew             json.RawMessage `json:"renew"`
	RenewPromo        json.RawMessage `json:"renew_promo"`
	RenewPromoEnds    json.RawMessage `json:"renew_promo_ends"`
	Transfer          json.RawMessage `json:"transfer"`
	TransferPromo     json.RawMessage `json:"transfer_promo"`
	TransferPromoEnds json.RawMessage `json:"transfer_promo_ends"`
}

// readJSON reads a JSON sheet's rows. A document that does not decode, or
// has no "prices" array, fails the whole sheet; an entry that is not an
// object, or has a field of the wrong type, is one bad row.
func readJSON(body []byte) ([]row, error) {
	if t := bytes.TrimSpace(body); len(t) > 0 && t[0] == '[' {
		return nil, errors.New(`a JSON price sheet is an object {"prices":[...]}, not a bare array`)
	}
	var doc struct {
		Prices json.RawMessage `json:"prices"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("decode JSON price sheet: %w", err)
	}
	if isNull(doc.Prices) {
		return nil, errors.New(`JSON price sheet has no "prices" array`)
	}
	var entries []json.RawMessage
	if err := json.Unmarshal(doc.Prices, &entries); err != nil {
		return nil, errors.New(`JSON price sheet's "prices" is not an array`)
	}
	rows := make([]row, 0, len(entries))
	for i, raw := range entries {
		where := place{n: i, json: true}
		c, rerr := jsonCells(raw)
		if rerr != nil {
			rerr.Row = where.String()
		}
		rows = append(rows, row{where: where, cells: c, err: rerr})
	}
	return rows, nil
}

// jsonCells reads one entry's fields as the CSV cells they stand for. With
// a field of the wrong type it still returns the fields it could read, so
// that a row naming its registrar and zone keeps that zone's last price.
func jsonCells(raw json.RawMessage) (cells, *RowError) {
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return cells{}, &RowError{Err: errors.New("is not an object")}
	}
	var jr jsonRow
	if err := json.Unmarshal(raw, &jr); err != nil {
		return cells{}, &RowError{Err: err}
	}
	var (
		c    cells
		rerr *RowError
	)
	for _, f := range []struct {
		name   string
		raw    json.RawMessage
		dst    *string
		number bool // an amount, which may be a JSON number
	}{
		{"registrar", jr.Registrar, &c.registrar, false},
		{"zone", jr.Zone, &c.zone, false},
		{"currency", jr.Currency, &c.currency, false},
		{"register", jr.Register, &c.ops[contracts.OpRegister].price, true},
		{"register_promo", jr.RegisterPromo, &c.ops[contracts.OpRegister].promo, true},
		{"register_promo_ends", jr.RegisterPromoEnds, &c.ops[contracts.OpRegister].ends, false},
		{"renew", jr.Renew, &c.ops[contracts.OpRenew].price, true},
		{"renew_promo", jr.RenewPromo, &c.ops[contracts.OpRenew].promo, true},
		{"renew_promo_ends", jr.RenewPromoEnds, &c.ops[contracts.OpRenew].ends, false},
		{"transfer", jr.Transfer, &c.ops[contracts.OpTransfer].price, true},
		{"transfer_promo", jr.TransferPromo, &c.ops[contracts.OpTransfer].promo, true},
		{"transfer_promo_ends", jr.TransferPromoEnds, &c.ops[contracts.OpTransfer].ends, false},
	} {
		s, err := text(f.raw, f.number)
		if err != nil {
			if rerr == nil {
				rerr = &RowError{Column: f.name, Err: err}
			}
			continue
		}
		*f.dst = s
	}
	return c, rerr
}

// text returns the text a field holds: a string, a number's literal digits
// when number is set, and "" for null or absent.
func text(raw json.RawMessage, number bool) (string, error) {
	if isNull(raw) {
		return "", nil
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return "", err
	}
	switch t := v.(type) {
	case string:
		return t, nil
	case json.Number:
		if number {
			return t.String(), nil
		}
	}
	if number {
		return "", fmt.Errorf("%s is neither a string nor a number", raw)
	}
	return "", fmt.Errorf("%s is not a string", raw)
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}
