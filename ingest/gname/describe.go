package gname

import (
	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
)

var _ ingest.Describer = (*Source)(nil)

// Describe implements ingest.Describer: a document of the registrar's own site, as the
// package comment says.
func (s *Source) Describe() ingest.Description {
	return ingest.Description{
		Kind: contracts.SourceSite, Document: s.url, Currency: currency, Tax: contracts.TaxUnknown,
		Registrars: []ingest.Registrar{{ID: Name, Name: "Gname", Website: "https://www.gname.com"}},
	}
}
