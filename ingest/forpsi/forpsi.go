// Package forpsi reads Forpsi's domain price list,
// https://www.forpsi.com/domain/: an HTML table rendered on the server, a
// row a zone, whose cells are the zone, the term ("1 rok", one year), a
// promotion ("akce", empty on most rows), the registration and the
// renewal, each price in Czech koruna with a decimal comma and shown twice,
// without VAT and with it ("700,00 Kč 847,00 vč. DPH").
//
// What is KNOWN, from the public readers of this list in
// github.com/hellouy/domainhub: adapters/forpsi.ts (commit b543363) fetches
// the URL with a plain GET ("SSR", 502 KB, 241 rows), keeps the rows whose
// first cell is "." and a letter, and names the five cells: the zone and a
// mark ("TLD+标志"), term ("1 rok"), akce (a promotion, on 8 rows),
// registration, renewal; prices
// are CZK in the shape "700,00 Kč 847,00 vč. DPH", the first without VAT
// (847,00 is 700,00 plus the Czech 21% DPH; "vč. DPH" is "VAT included"),
// and an akce below the registration is a promotion on it. No transfer
// price is read. adapters/table-registrars.ts (commit 001f44c) reads the
// same five cells, the first ".TLD 类别" (the zone, then its category),
// with the comment that the term cell was once misread as a price of 1
// CZK; both take the zone from the start of that cell; .monkeycode/docs/registrar-candidate-pool.md (commit
// 078c1ed) gives .xyz 400/400 and .org 360/385 (registration/renewal).
//
// What is ASSUMED:
//
//   - The cells are read by position: zone, term, akce, registration,
//     renewal. Headings are not known: those below are a guess, and any
//     other shows as unknown drift on the first real page read.
//   - The zone is the first word of its cell, written with its leading
//     dot; what follows it (the category, a mark) is not read. A row whose
//     first cell does not start with "." is left out (kit.DottedZone).
//   - The term cell starts with "1 rok" (more after it, the options of a
//     term picker, is not read). One starting with a larger number of years
//     ("2 roky") is left out: its prices may be the whole term's. Any other
//     term skips the row.
//   - Every price cell shows two amounts, the first without VAT (read) and
//     the second with it, their thousands spaced ("1 190,00 Kč 1 439,90
//     vč. DPH": kit.Table.Amounts with DecimalComma). A cell of one amount
//     or three skips the row; an empty or "-" one is not offered. A
//     registration or renewal cell whose amounts are not marked "Kč" skips
//     the row, named: the amounts carry no currency of their own, and one
//     in euros must not be read as koruna (domainhub's MEMORY.md at
//     0018074 lists forpsi as "EUR 243", against forpsi.ts's CZK).
//   - The akce cell has the same two amounts; where it is below the
//     registration it is a promotion on it, with no end the page states.
//     An akce cell that cannot be read is ignored and the registration's
//     regular price stands (kit.Op.Sale).
//   - Tax: the amount read is without VAT: excluded.
//
// # Fields
//
// The table's cells, by position: 0 zone, 1 term (checked), 2 akce
// (promotion on the registration), 3 registration, 4 renewal; headings
// ASSUMED "doména", "období", "akce", "registrace", "prodloužení" (known,
// not read).
package forpsi

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
	"github.com/zoneprice/zoneprice/ingest/kit"
)

// Name is the source's name and Forpsi's registrar id.
const Name = "forpsi"

// Declaration is the source, as the package comment reads it.
func Declaration() *kit.Declaration {
	d := kit.Site(Name, "Forpsi", "https://www.forpsi.com", "https://www.forpsi.com/domain/", "forpsi price list", "CZK", &kit.Table{
		Format: kit.HTML, Rows: "table tr", Zone: "0", ZoneName: leadingWord, Prepare: oneYear,
		DecimalComma: true, Amounts: 2, Pick: 0,
		Register: kit.Op{Price: "3", Sale: "2"}, Renew: kit.Op{Price: "4"},
		Ignore: []string{"doména", "období", "akce", "registrace", "prodloužení"},
	})
	d.Tax = contracts.TaxExcluded
	return d
}

// leadingWord is the zone a first cell starts with: the cell is the zone
// and then its category or mark.
func leadingWord(written string) (string, error) {
	if words := strings.Fields(written); len(words) > 0 {
		return words[0], nil
	}
	return written, nil
}

// oneYear leaves out a row that is no zone's and one whose term is more
// than a year, and skips one whose term is not a number of years or whose
// registration or renewal is not in koruna.
func oneYear(r *kit.Row) error {
	if err := kit.DottedZone(r); err != nil {
		return err
	}
	for _, cell := range []string{"3", "4"} {
		shown, _ := kit.String(r.Get(cell))
		if strings.ContainsAny(shown, "0123456789") && !strings.Contains(shown, "Kč") {
			return fmt.Errorf("price %q is not marked Kč", shown)
		}
	}
	written, _ := kit.String(r.Get("1"))
	words := strings.Fields(written)
	years, err := 0, fmt.Errorf("no term")
	if len(words) >= 2 {
		years, err = strconv.Atoi(words[0])
	}
	switch {
	case err != nil || years < 1 || !strings.HasPrefix(words[1], "rok") && words[1] != "let":
		return fmt.Errorf("term %q is not a number of years", written)
	case years > 1:
		return ingest.LeftOut(fmt.Sprintf("a term of %d years: the prices may be the whole term's", years))
	}
	return nil
}
