package ovhcloud

import (
	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
)

var _ ingest.Describer = (*Source)(nil)

// Describe implements ingest.Describer: the registrar's API, as the
// package comment says.
func (s *Source) Describe() ingest.Description {
	return ingest.Description{
		Kind: contracts.SourceAPI, Document: s.url, Currency: "", Tax: contracts.TaxExcluded,
		Registrars: []ingest.Registrar{{ID: Name, Name: "OVHcloud", Website: "https://www.ovhcloud.com"}},
	}
}
