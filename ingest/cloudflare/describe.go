package cloudflare

import (
	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
)

var _ ingest.Describer = (*Source)(nil)

// Describe implements ingest.Describer: a third party's list of the registrar's prices, as the
// package comment says.
func (s *Source) Describe() ingest.Description {
	return ingest.Description{
		Kind: contracts.SourceList, Document: s.url, Currency: defaultCurrency, Tax: contracts.TaxExcluded,
		Registrars: []ingest.Registrar{{ID: Name, Name: "Cloudflare", Website: "https://www.cloudflare.com/products/registrar/"}},
	}
}
