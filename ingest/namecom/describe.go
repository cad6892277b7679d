package namecom

import (
	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
)

var _ ingest.Describer = (*Source)(nil)

// Describe implements ingest.Describer: the registrar's API, as the
// package comment says.
func (s *Source) Describe() ingest.Description {
	return ingest.Description{
		Kind: contracts.SourceAPI, Document: s.url.String(), Currency: currency, Tax: contracts.TaxUnknown,
		Registrars: []ingest.Registrar{{ID: Name, Name: "Name.com", Website: "https://www.name.com"}},
	}
}
