package kit

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest/money"
)

// marks are the currency marks registrars write before a price, longest
// first so that "C$" is not read as "$". "$" alone is the US dollar:
// the registrars that show other dollars write them with their prefix.
var marks = []struct{ mark, code string }{
	{"US$", "USD"}, {"CA$", "CAD"}, {"MX$", "MXN"}, {"AU$", "AUD"}, {"NZ$", "NZD"}, {"A$", "AUD"},
	{"C$", "CAD"}, {"R$", "BRL"}, {"Rs.", "INR"}, {"Rs", "INR"}, {"₹", "INR"}, {"€", "EUR"},
	{"£", "GBP"}, {"¥", "CNY"}, {"￥", "CNY"}, {"KSh", "KES"}, {"Ksh", "KES"}, {"$", "USD"},
}

// marksAfter are the currency marks registrars write after a price
// ("69元", "14.59€").
var marksAfter = []struct{ mark, code string }{{"元", "CNY"}, {"€", "EUR"}}

// Marked splits a price as shown into its currency ("" when it shows
// none) and its decimal text: a mark before it ("$10.88", "C$12.00",
// "€9,99" stays a decimal comma for money.Parse to refuse), one after it
// ("69元", "14.59 €") or an ISO code before or after it ("USD 10.88", "10.88 EUR").
// Non-breaking spaces are spaces.
func Marked(s string) (cur, text string) {
	s = strings.TrimSpace(strings.ReplaceAll(s, "\u00a0", " "))
	for _, m := range marks {
		if rest, ok := strings.CutPrefix(s, m.mark); ok {
			return m.code, strings.TrimSpace(rest)
		}
	}
	for _, m := range marksAfter {
		if rest, ok := strings.CutSuffix(s, m.mark); ok {
			return m.code, strings.TrimSpace(rest)
		}
	}
	if len(s) > 3 {
		if _, ok := contracts.CurrencyExponent(s[:3]); ok {
			return s[:3], strings.TrimSpace(s[3:])
		}
		if _, ok := contracts.CurrencyExponent(s[len(s)-3:]); ok {
			return s[len(s)-3:], strings.TrimSpace(s[:len(s)-3])
		}
	}
	return "", s
}

// Currency reads a currency code field: upper case, "" for an absent,
// null or empty one, an error for one that is no ISO 4217 code this
// service knows.
func Currency(raw json.RawMessage) (string, error) {
	if IsNull(raw) {
		return "", nil
	}
	s, ok := String(raw)
	if !ok {
		return "", fmt.Errorf("currency %s is not a string", Snippet(raw))
	}
	s = strings.ToUpper(s)
	if s == "" {
		return "", nil
	}
	if _, ok := contracts.CurrencyExponent(s); !ok {
		return "", fmt.Errorf("unknown currency %q", s)
	}
	return s, nil
}

// A price is one amount as a row shows it, before its currency is known.
type price struct {
	text string // decimal text; "" for no price
	cur  string // the currency it shows, "" for none
}

// readPrice reads a JSON price field as t declares prices are written:
// "" text for a field that says there is none.
func (t *Table) readPrice(raw json.RawMessage) (price, error) {
	text, err := DecimalText(raw)
	if errors.Is(err, money.ErrNoPrice) {
		return price{}, nil
	}
	if err != nil {
		return price{}, err
	}
	var p price
	if t.Amounts > 1 {
		if text, err = t.pick(text); err != nil {
			return price{}, err
		}
	}
	switch rest, bare := strings.CutPrefix(strings.TrimSpace(text), "$"); {
	case t.Dollar != "" && bare:
		p.cur, text = t.Dollar, rest
	case t.Symbols:
		p.cur, text = Marked(text)
	}
	text = strings.TrimSpace(text)
	if t.Unit != "" {
		text = cutUnit(text, t.Unit)
	}
	if t.NotOffered != nil && t.NotOffered(text) {
		return p, nil
	}
	if t.DecimalComma && !money.NoPrice(text) {
		if text, err = CommaDecimal(text); err != nil {
			return p, err
		}
	}
	if t.AmbiguousComma && strings.Contains(text, ",") && !strings.Contains(text, ".") {
		return p, fmt.Errorf("%q is ambiguous: a thousands separator or a decimal comma", text)
	}
	if money.NoPrice(text) {
		return p, nil
	}
	p.text = text
	return p, nil
}

// pick is the amount of a cell showing Amounts of them that Pick names,
// or the cell as it is when it shows none.
func (t *Table) pick(text string) (string, error) {
	amounts := amountWords(text, t.DecimalComma)
	switch {
	case len(amounts) == 0:
		return text, nil
	case len(amounts) != t.Amounts:
		return "", fmt.Errorf("%q shows %d amounts, not %d: which is which cannot be told", text, len(amounts), t.Amounts)
	case t.Pick < 0 || t.Pick >= t.Amounts:
		return "", fmt.Errorf("the table picks amount %d of %d", t.Pick, t.Amounts)
	}
	return amounts[t.Pick], nil
}

// minor reads p in cur into minor units, refusing an amount above the
// ceiling of contracts.MaxAmount.
func (p price) minor(cur string) (int64, error) {
	a, err := money.Parse(p.text, cur)
	switch {
	case err != nil:
		return 0, err
	case a > contracts.MaxAmount:
		return 0, fmt.Errorf("%q is above the ceiling of %d minor units", p.text, contracts.MaxAmount)
	}
	return a, nil
}

// cutUnit removes unit written before or after text ("kr 199", "199 kr"),
// its spaces with it.
func cutUnit(text, unit string) string {
	if rest, ok := strings.CutPrefix(text, unit); ok {
		return strings.TrimSpace(rest)
	}
	if rest, ok := strings.CutSuffix(text, unit); ok {
		return strings.TrimSpace(rest)
	}
	return text
}

// CommaDecimal turns a price written with a decimal comma into the
// decimal text money.Parse reads: "1 249,00" (a space of any width) and
// "1.249,00" are "1249.00", "199,-" is "199". A separator that is not
// one between groups of three digits, a dot where a decimal comma is
// expected ("12.50") or a second comma fails: which amount is meant
// cannot be told.
func CommaDecimal(s string) (string, error) {
	bad := fmt.Errorf("%q is not a price written with a decimal comma", s)
	whole, frac, hasComma := strings.Cut(strings.TrimSpace(s), ",")
	switch {
	case !hasComma:
	case frac == "-":
		hasComma = false
	case frac == "" || strings.Trim(frac, "0123456789") != "":
		return "", bad
	}
	var b strings.Builder
	group, groups := 0, 0 // digits in the current group; groups closed
	for _, r := range whole {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
			group++
		case r == '.' || r == ' ' || r == '\u00a0' || r == '\u202f' || r == '\u2009':
			if group == 0 || group > 3 || groups > 0 && group != 3 {
				return "", bad
			}
			group, groups = 0, groups+1
		default:
			return "", bad
		}
	}
	if group == 0 || groups > 0 && group != 3 {
		return "", bad
	}
	if hasComma {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String(), nil
}

// amountWords are the amounts a cell shows: its words holding a digit. With
// grouped (a decimal comma, whose thousands may be spaced), a word of one to
// three digits followed by one that starts with a group of three ("1 200,00",
// "12 500") is one amount, written with a space; CommaDecimal then reads or
// refuses it.
func amountWords(text string, grouped bool) []string {
	var out []string
	group := false // the word before was a group of one to three digits
	for _, w := range strings.Fields(text) {
		if !strings.ContainsAny(w, "0123456789") {
			group = false
			continue
		}
		if grouped && group && startsGroup(w) {
			out[len(out)-1] += " " + w
		} else {
			out = append(out, w)
		}
		group = len(w) <= 3 && strings.Trim(w, "0123456789") == ""
	}
	return out
}

// startsGroup reports a word that starts with a group of three digits,
// alone or before its decimal comma ("200", "200,00").
func startsGroup(w string) bool {
	return len(w) >= 3 && strings.Trim(w[:3], "0123456789") == "" && (len(w) == 3 || w[3] == ',')
}
