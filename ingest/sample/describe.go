package sample

import (
	"strings"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
)

var _ ingest.Describer = (*Source)(nil)

// Describe implements ingest.Describer: the invented sample registrars,
// each named as invented ("Sample Alpha (invented)"), with no website and
// no document, each in its own currency.
func (s *Source) Describe() ingest.Description {
	d := ingest.Description{Kind: contracts.SourceSample, Tax: contracts.TaxUnknown}
	for _, r := range named {
		word := strings.TrimPrefix(r.id, contracts.SampleRegistrarPrefix)
		d.Registrars = append(d.Registrars, ingest.Registrar{
			ID: r.id, Name: "Sample " + strings.ToUpper(word[:1]) + word[1:] + " (invented)", Currency: r.currency,
		})
	}
	return d
}
