// Command generated-client reads a zoneprice server through the clients
// generated from the API's OpenAPI document (openapitest.GenerateClients
// builds it beside them) and prints what they decoded as one JSON object,
// for TestGeneratedClients to compare with the server's own bodies. Most
// calls go through ogen's client, which validates every body it decodes
// against the document's schemas; one goes through oapi-codegen's. An
// answer of another status than the one asked for (a comparison
// revalidated by its ETag must be a 304) is an error.
//
// Usage: generated-client URL
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/ogen-go/ogen/ogenerrors"

	"github.com/zoneprice/zoneprice/contracts/openapitest/generators/oapiclient"
	"github.com/zoneprice/zoneprice/contracts/openapitest/generators/ogenclient"
)

// decoded is what the clients decoded.
type decoded struct {
	Zones            []string  `json:"zones"`              // GET /api/domains: each zone
	ComRegistrars    []string  `json:"com_registrars"`     // GET /api/comparison/com: each row's registrar
	ComRegister      []float64 `json:"com_register"`       // and its registration price, 0 for null
	MalformedCode    string    `json:"malformed_code"`     // GET /api/comparison/exa_mple: the problem's code
	MalformedParam   string    `json:"malformed_param"`    // and its param
	Changes          []string  `json:"changes"`            // GET /api/changes?kind=added&since=2000-01-01&limit=5: each id
	OapiCodegenZones int       `json:"oapi_codegen_zones"` // GET /api/domains by oapi-codegen's client: count
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: generated-client URL")
		os.Exit(2)
	}
	d, err := read(context.Background(), os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := json.NewEncoder(os.Stdout).Encode(d); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// anonymous is a client without an API key, as the document allows
// (security {}): it sends neither of the key's forms.
type anonymous struct{}

func (anonymous) BearerKey(context.Context, ogenclient.OperationName) (ogenclient.BearerKey, error) {
	return ogenclient.BearerKey{}, ogenerrors.ErrSkipClientSecurity
}

func (anonymous) HeaderKey(context.Context, ogenclient.OperationName) (ogenclient.HeaderKey, error) {
	return ogenclient.HeaderKey{}, ogenerrors.ErrSkipClientSecurity
}

func read(ctx context.Context, url string) (decoded, error) {
	var d decoded
	c, err := ogenclient.NewClient(url, anonymous{})
	if err != nil {
		return d, err
	}

	var res any // each operation's own interface of answers
	res, err = c.ListDomains(ctx, ogenclient.ListDomainsParams{})
	domains, err := answer[body[ogenclient.DomainList]]("list domains", res, err)
	if err != nil {
		return d, err
	}
	for _, z := range domains.GetResponse().Zones {
		d.Zones = append(d.Zones, string(z.Zone))
	}

	res, err = c.GetComparison(ctx, ogenclient.GetComparisonParams{Zone: "com"})
	cmp, err := answer[interface {
		body[ogenclient.Comparison]
		GetETag() string
	}]("comparison", res, err)
	if err != nil {
		return d, err
	}
	for _, row := range cmp.GetResponse().Prices {
		d.ComRegistrars = append(d.ComRegistrars, string(row.Registrar))
		d.ComRegister = append(d.ComRegister, float64(row.Register.Or(0)))
	}
	res, err = c.GetComparison(ctx, ogenclient.GetComparisonParams{Zone: "com", IfNoneMatch: ogenclient.NewOptString(cmp.GetETag())})
	if _, err := answer[*ogenclient.NotModified]("comparison revalidated by its ETag", res, err); err != nil {
		return d, err
	}

	res, err = c.GetComparison(ctx, ogenclient.GetComparisonParams{Zone: "exa_mple"})
	bad, err := answer[body[ogenclient.Problem]]("comparison of a malformed zone", res, err)
	if err != nil {
		return d, err
	}
	d.MalformedCode, d.MalformedParam = string(bad.GetResponse().Code), bad.GetResponse().Param.Or("")

	res, err = c.ListChanges(ctx, ogenclient.ListChangesParams{Kind: []ogenclient.KindItem{ogenclient.KindItemAdded},
		Since: ogenclient.NewOptString("2000-01-01"), Limit: ogenclient.NewOptInt(5)})
	changes, err := answer[body[ogenclient.ChangesPage]]("changes", res, err)
	if err != nil {
		return d, err
	}
	for _, ch := range changes.GetResponse().Changes {
		d.Changes = append(d.Changes, ch.ID)
	}

	oc, err := oapiclient.NewClientWithResponses(url)
	if err != nil {
		return d, err
	}
	ores, err := oc.ListDomainsWithResponse(ctx, nil)
	if err != nil {
		return d, fmt.Errorf("oapi-codegen: list domains: %w", err)
	}
	if ores.JSON200 == nil {
		return d, fmt.Errorf("oapi-codegen: list domains: %s, no body decoded", ores.Status())
	}
	d.OapiCodegenZones = len(ores.JSON200.Zones)
	return d, nil
}

// body is an answer of ogen's with a body of the schema T. ogen names
// each answer's type after its response, or after its schema when the
// response has several media types, so the program asks for what an
// answer holds rather than its name.
type body[T any] interface{ GetResponse() T }

// answer is ogen's answer res as the response T, or an error that says
// what came instead.
func answer[T any](what string, res any, err error) (T, error) {
	var zero T
	if err != nil {
		return zero, fmt.Errorf("ogen: %s: %w", what, err)
	}
	t, ok := res.(T)
	if !ok {
		return zero, fmt.Errorf("ogen: %s: got a %T, want a %T", what, res, zero)
	}
	return t, nil
}
