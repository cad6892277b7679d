package sheet

import (
	"net/url"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
)

var _ ingest.Describer = (*Source)(nil)

// Describe implements ingest.Describer: an operator's sheet, pricing in
// each row's currency, for the registrars its rows name (known by their
// ids). Its document is its URL without a query or user, either of which
// may hold a key ("" for a file).
func (s *Source) Describe() ingest.Description {
	d := ingest.Description{Kind: contracts.SourceSheet, Tax: contracts.TaxUnknown}
	if u, err := url.Parse(s.url); err == nil && s.url != "" {
		u.User, u.RawQuery, u.Fragment = nil, "", ""
		d.Document = u.String()
	}
	return d
}
