package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v5"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zoneprice/zoneprice/cache"
	"github.com/zoneprice/zoneprice/contracts"
)

// The API over the Model Context Protocol, for agents: Streamable HTTP at
// /mcp, stateless (any pod behind the load balancer answers any call: there
// is no session to keep), answering JSON. Each tool is one of the API's
// read routes. Its arguments are that route's query options, named and
// checked as the route checks them (the same code parses them), its
// structured result is that route's body from the same snapshot, and its
// error is a tool error carrying the route's problem document. So an
// agent's answer and the API's never differ; keys and limits are the
// API's, charged per MCP request.

// mcpPath is the MCP endpoint. It is not in the OpenAPI document: MCP
// describes its tools itself (tools/list), each with its routes' schemas.
const mcpPath = "/mcp"

// mcpGuide is what every tool's description ends with, for a model.
const mcpGuide = " Prices are JSON numbers in the response's currency (USD unless `currency` asks for another), " +
	"with that currency's decimals, for one year; a price the registrar sets in another currency is converted with " +
	"the reference rates the response names in `rates`, and its own amounts are in `native`. `promo` holds a " +
	"first-year promotion's regular price and end. Registrars whose id starts with `sample-` are invented sample " +
	"data, never real prices: say so when you quote them."

// mcpRoute is one tool: the route it answers as and how.
type mcpRoute struct {
	name, path, description string
	answer                  func(s *Server, snap *cache.Snapshot, zone string, q url.Values) (*cache.Body, error)
}

var mcpRoutes = []mcpRoute{
	{name: "find_zones", path: "/api/domains",
		description: "Find domain zones (TLDs such as .com, second-level zones such as .co.uk) and the cheapest price " +
			"of each for registration, renewal and transfer. Search by name (`q`), filter by `category`, sort by the cheapest " +
			"`register`, `renew` or `transfer`, or by the cost of `years` years (registration then renewals) with `sort=cost`; " +
			"pages of `limit` follow `next_cursor`.",
		answer: func(s *Server, snap *cache.Snapshot, _ string, q url.Values) (*cache.Body, error) {
			b, _, err := s.catalog(snap, q)
			return b, err
		}},
	{name: "list_categories", path: "/api/domains/categories",
		description: "List the categories zones belong to (IANA types such as country-code, overlays such as idn and " +
			"new-gtld, themes such as finance), with how many priced zones each has: the ids find_zones' `category` takes.",
		answer: func(_ *Server, snap *cache.Snapshot, _ string, _ url.Values) (*cache.Body, error) {
			return snap.Categories, nil
		}},
	{name: "compare_zone", path: "/api/comparison/{zone}",
		description: "Compare what every registrar charges for one zone: one row per registrar with the price to register, " +
			"renew and transfer now, cheapest registration first, which row is cheapest per operation, and `renewal_trap` where " +
			"the renewal costs at least twice the registration paid now. `years` sorts by the cost of that many years; " +
			"`registrars` or `exclude` pick rows; `tax=excluded` compares like with like.",
		answer: func(s *Server, snap *cache.Snapshot, zone string, q url.Values) (*cache.Body, error) {
			z, err := normalizeZoneParam(zone)
			if err != nil {
				return nil, err
			}
			b, ok := snap.Comparison(z.ASCII)
			if !ok {
				return nil, unknownZone(z)
			}
			b, _, err = s.comparisonWith(snap, z.ASCII, b, q)
			return b, err
		}},
	{name: "zone_price_history", path: "/api/comparison/{zone}/history",
		description: "The history of one zone's prices: per registrar, every period of its price, newest first, with when " +
			"it began and ended (null while current) and whether it began as an addition or a change. `since` keeps the " +
			"periods that had not ended by then.",
		answer: func(s *Server, snap *cache.Snapshot, zone string, q url.Values) (*cache.Body, error) {
			v, loaded := s.snaps.History()
			if !loaded {
				return nil, historyLoading()
			}
			z, err := normalizeZoneParam(zone)
			if err != nil {
				return nil, err
			}
			return s.zoneHistory(snap, v, z, q)
		}},
	{name: "price_changes", path: "/api/changes",
		description: "The feed of price changes across zones, newest first: each registrar's price added, changed or " +
			"withdrawn, with the offer before and after and `dropped` when it lowered what a customer pays. Filter by `zone`, " +
			"`registrar`, `category`, `kind` (added, changed, withdrawn, dropped) and `since`; pages of `limit` follow " +
			"`next_cursor` (pass it as `cursor`).",
		answer: func(s *Server, snap *cache.Snapshot, _ string, q url.Values) (*cache.Body, error) {
			v, loaded := s.snaps.History()
			if !loaded {
				return nil, historyLoading()
			}
			b, _, err := s.changes(snap, v, q)
			return b, err
		}},
	{name: "list_registrars", path: "/api/registrars",
		description: "List the registrars whose prices the service holds: per registrar its name and website, where its " +
			"prices come from (`kind`: the registrar's own `api` or `site`, a third party's `list`, an operator's `sheet`, " +
			"or the invented `sample`), its currency and tax declaration, how often it is fetched (`interval_seconds`), " +
			"when the last round ran and succeeded, the last failure's class, how many zones it prices, and `stale`: " +
			"`true` when its last success is older than twice its interval, so its prices may no longer be what it " +
			"charges (say so when you quote them). `reported` is false for a registrar known only by its prices. " +
			"Filter by `q` (id or name), `kind` and `stale`; sort by `registrar`, `name`, `zones` or `last_success`.",
		answer: func(s *Server, snap *cache.Snapshot, _ string, q url.Values) (*cache.Body, error) {
			return s.registrars(snap, q)
		}},
}

// newMCP returns the /mcp handler of s's tools.
func (s *Server) newMCP() (http.Handler, error) {
	doc, err := newOpenAPIDoc(contracts.OpenAPI())
	if err != nil {
		return nil, err
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: "zoneprice", Title: "zoneprice: domain zone prices", Version: doc.version},
		&sdk.ServerOptions{Instructions: "Read-only tools over zoneprice's catalog of domain zones and what registrars charge " +
			"for them, the same data as its JSON API." + mcpGuide})
	for _, r := range mcpRoutes {
		tool, err := doc.tool(r)
		if err != nil {
			return nil, err
		}
		srv.AddTool(tool, s.mcpHandler(r, doc.params[r.path]))
	}
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv },
		&sdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true}), nil
}

// mcpMaxContent bounds an MCP request's content: a tool call's arguments
// are a few options.
const mcpMaxContent = 64 << 10

// handleMCP serves /mcp, its content bounded.
func (s *Server) handleMCP() echo.HandlerFunc {
	return func(c *echo.Context) error {
		req := c.Request()
		req.Body = http.MaxBytesReader(c.Response(), req.Body, mcpMaxContent)
		s.mcp.ServeHTTP(c.Response(), req)
		return nil
	}
}

// mcpHandler answers a call of r's tool, whose arguments are params.
func (s *Server) mcpHandler(r mcpRoute, params map[string]openAPIParam) sdk.ToolHandler {
	return func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		zone, q, err := mcpArgs(req.Params.Arguments, params)
		if err != nil {
			return s.mcpError(err, r.path), nil
		}
		snap, err := s.snapshot()
		if err != nil {
			return s.mcpError(err, r.path), nil
		}
		b, err := r.answer(s, snap, zone, q)
		if err != nil {
			return s.mcpError(err, r.path), nil
		}
		return &sdk.CallToolResult{StructuredContent: json.RawMessage(b.JSON),
			Content: []sdk.Content{&sdk.TextContent{Text: string(b.JSON)}}}, nil
	}
}

// mcpError is a tool error carrying the problem the route would answer.
func (s *Server) mcpError(err error, path string) *sdk.CallToolResult {
	p := s.problemOf(err, http.MethodGet, path, nil)
	doc, _ := json.Marshal(p)
	return &sdk.CallToolResult{IsError: true, StructuredContent: json.RawMessage(doc),
		Content: []sdk.Content{&sdk.TextContent{Text: p.Title + ": " + p.Detail}}}
}

// mcpArgs reads a call's arguments as the route's options: the zone (for
// a route of one zone) and the query. An argument the route does not take,
// or of another type than its option's, is a problem naming it, as a query
// option is.
func mcpArgs(raw json.RawMessage, params map[string]openAPIParam) (zone string, q url.Values, err error) {
	args := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(raw)) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &args); err != nil {
			return "", nil, invalidParam("arguments", "must be a JSON object of the tool's arguments")
		}
	}
	q = url.Values{}
	for _, name := range slices.Sorted(maps.Keys(args)) {
		p, ok := params[name]
		if !ok {
			return "", nil, invalidParam(name, "is no argument of this tool; its arguments are "+strings.Join(slices.Sorted(maps.Keys(params)), ", "))
		}
		v, err := p.text(args[name])
		if err != nil {
			return "", nil, invalidParam(name, err.Error())
		}
		if p.in == "path" {
			zone = v
			continue
		}
		q.Set(name, v)
	}
	for name, p := range params {
		if p.required && args[name] == nil {
			return "", nil, invalidParam(name, "is required")
		}
	}
	return zone, q, nil
}

// text is an argument's value as the route's query option takes it: a
// string as it is, an integer in decimal, a boolean as true or false, a
// list comma-separated.
func (p openAPIParam) text(raw json.RawMessage) (string, error) {
	switch p.kind {
	case "integer":
		var n json.Number
		if err := json.Unmarshal(raw, &n); err != nil {
			return "", fmt.Errorf("must be an integer")
		}
		if _, err := strconv.ParseInt(n.String(), 10, 64); err != nil {
			return "", fmt.Errorf("must be an integer, not %s", n)
		}
		return n.String(), nil
	case "boolean":
		var v bool
		if err := json.Unmarshal(raw, &v); err != nil {
			return "", fmt.Errorf("must be true or false")
		}
		return strconv.FormatBool(v), nil
	case "array":
		var list []string
		if err := json.Unmarshal(raw, &list); err != nil {
			return "", fmt.Errorf("must be an array of strings")
		}
		return strings.Join(list, ","), nil
	}
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", fmt.Errorf("must be a string")
	}
	return v, nil
}

// unknownZone is the problem of a zone no registrar prices.
func unknownZone(z contracts.Zone) error {
	return paramProblem(http.StatusNotFound, contracts.CodeUnknownZone, "Unknown zone", "zone",
		"no registrar prices for "+z.ASCII+" ("+z.Unicode+"); find_zones lists the zones that have them")
}

// historyLoading is the problem of a history not loaded yet.
func historyLoading() error {
	return problem(http.StatusServiceUnavailable, contracts.CodeNotReady, "History loading",
		"the price history is still loading (the prices are served); retry shortly")
}
