package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/eventtest"
	"github.com/zoneprice/zoneprice/query/access"
	"github.com/zoneprice/zoneprice/query/api"
)

// mcpTools are the tools the server lists.
var mcpTools = []string{"compare_zone", "find_zones", "list_categories", "list_registrars", "price_changes", "zone_price_history"}

// mcpServing serves the base events and the fixture history on a real
// listener, and returns /mcp's URL.
func mcpServing(t *testing.T) string {
	t.Helper()
	snaps := serving(t, append(baseEvents(), eventtest.Status("alpha", "Alpha", time.Hour, epoch, 3),
		eventtest.Status("bravo", "Bravo", time.Hour, epoch.Add(-3*time.Hour), 2))...)
	snaps.hist = historyOf(t, historyEvents()...)
	return "http://" + serveOn(t, nil, snaps) + "/mcp"
}

// mcpCall is one tool call and what it must answer: the route it stands
// for, whose body the structured result must be.
type mcpCall struct {
	name  string
	tool  string
	args  map[string]any
	route string
}

var mcpCalls = []mcpCall{
	{"the catalog", "find_zones", nil, "/api/domains"},
	{"the catalog by 3-year cost", "find_zones", map[string]any{"sort": "cost", "years": 3, "limit": 2}, "/api/domains?sort=cost&years=3&limit=2"},
	{"the categories", "list_categories", map[string]any{}, "/api/domains/categories"},
	{"a zone as a person types it", "compare_zone", map[string]any{"zone": "COM"}, "/api/comparison/.com"},
	{"a zone in Unicode, some registrars", "compare_zone", map[string]any{"zone": ".рф", "registrars": []string{"alpha"}}, "/api/comparison/.xn--p1ai?registrars=alpha"},
	{"a zone's history", "zone_price_history", map[string]any{"zone": ".com"}, "/api/comparison/.com/history"},
	{"the dropped prices", "price_changes", map[string]any{"kind": []string{"dropped"}, "limit": 5}, "/api/changes?kind=dropped&limit=5"},
	{"the registrars", "list_registrars", nil, "/api/registrars"},
	{"the stale registrars by zones", "list_registrars", map[string]any{"stale": true, "sort": "-zones", "kind": []string{"api"}},
		"/api/registrars?stale=true&sort=-zones&kind=api"},
}

// TestMCPOfficialClient drives /mcp with the official SDK's client over
// real HTTP: it lists the tools, each with an input and an output schema,
// and every call answers what the API answers for the same route and
// options; an unknown zone is a tool error carrying the API's problem.
func TestMCPOfficialClient(t *testing.T) {
	url := mcpServing(t)
	base := strings.TrimSuffix(url, "/mcp")
	ctx := context.Background()
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	session, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { session.Close() })
	list, err := session.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		if tool.InputSchema == nil || tool.OutputSchema == nil || !strings.Contains(tool.Description, "sample-") {
			t.Errorf("tool %s: input schema %v, output schema set %v, description %q", tool.Name, tool.InputSchema, tool.OutputSchema != nil, tool.Description)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, mcpTools) {
		t.Errorf("tools %v, want %v", names, mcpTools)
	}
	for _, c := range mcpCalls {
		t.Run(c.name, func(t *testing.T) {
			res, err := session.CallTool(ctx, &sdk.CallToolParams{Name: c.tool, Arguments: c.args})
			if err != nil || res.IsError {
				t.Fatalf("%s(%v) = %+v, %v", c.tool, c.args, res, err)
			}
			sameJSON(t, res.StructuredContent, apiBody(t, base+c.route))
		})
	}
	res, err := session.CallTool(ctx, &sdk.CallToolParams{Name: "compare_zone", Arguments: map[string]any{"zone": ".nope"}})
	if err != nil || !res.IsError {
		t.Fatalf("compare_zone of an unknown zone = %+v, %v; want a tool error", res, err)
	}
	var p contracts.Problem
	remarshal(t, res.StructuredContent, &p)
	if p.Code != contracts.CodeUnknownZone || p.Param != "zone" {
		t.Errorf("the tool error's problem = %+v, want unknown-zone of param zone", p)
	}
}

// TestMCPSecondClient drives /mcp with mark3labs/mcp-go's client, which
// was written apart from the official SDK: it lists the tools and calls
// each one; a malformed or unknown argument is a tool error naming it,
// never a transport failure.
func TestMCPSecondClient(t *testing.T) {
	url := mcpServing(t)
	base := strings.TrimSuffix(url, "/mcp")
	ctx := context.Background()
	c, err := mcpgoclient.NewStreamableHttpClient(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcpgo.InitializeRequest{Params: mcpgo.InitializeParams{ProtocolVersion: mcpgo.LATEST_PROTOCOL_VERSION,
		ClientInfo: mcpgo.Implementation{Name: "test", Version: "1"}}}); err != nil {
		t.Fatal(err)
	}
	list, err := c.ListTools(ctx, mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != len(mcpTools) {
		t.Errorf("%d tools listed, want %d", len(list.Tools), len(mcpTools))
	}
	for _, call := range mcpCalls {
		t.Run(call.name, func(t *testing.T) {
			res, err := c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: call.tool, Arguments: call.args}})
			if err != nil || res.IsError {
				t.Fatalf("%s(%v) = %+v, %v", call.tool, call.args, res, err)
			}
			sameJSON(t, res.StructuredContent, apiBody(t, base+call.route))
		})
	}
	for _, bad := range []struct {
		name  string
		tool  string
		args  map[string]any
		param string
	}{
		{"an unknown argument", "find_zones", map[string]any{"colour": "blue"}, "colour"},
		{"a number as text", "find_zones", map[string]any{"limit": "many"}, "limit"},
		{"a value the route does not take", "find_zones", map[string]any{"sort": "price"}, "sort"},
		{"no zone", "compare_zone", map[string]any{}, "zone"},
		{"a malformed zone", "compare_zone", map[string]any{"zone": "a..b"}, "zone"},
		{"a boolean as text", "list_registrars", map[string]any{"stale": "yes"}, "stale"},
		{"an unknown kind", "list_registrars", map[string]any{"kind": []string{"rumour"}}, "kind"},
	} {
		t.Run(bad.name, func(t *testing.T) {
			res, err := c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: bad.tool, Arguments: bad.args}})
			if err != nil {
				t.Fatalf("%s(%v): a transport error %v, want a tool error", bad.tool, bad.args, err)
			}
			var p contracts.Problem
			remarshal(t, res.StructuredContent, &p)
			if !res.IsError || p.Param != bad.param || p.Status != http.StatusBadRequest {
				t.Errorf("%s(%v) = %+v; want a tool error with a 400 problem naming %s", bad.tool, bad.args, p, bad.param)
			}
		})
	}
}

// apiBody is the API's answer to a GET of url, which must be 200.
func apiBody(t *testing.T, url string) json.RawMessage {
	t.Helper()
	resp, body := get(t, url)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, body)
	}
	return body
}

// sameJSON fails unless got and want are the same JSON value.
func sameJSON(t *testing.T, got any, want json.RawMessage) {
	t.Helper()
	var g, w any
	remarshal(t, got, &g)
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(g)
	b, _ := json.Marshal(w)
	if string(a) != string(b) {
		t.Errorf("the tool's structured result\n%s\nwant the API's body\n%s", a, b)
	}
}

func remarshal(t *testing.T, from, to any) {
	t.Helper()
	b, err := json.Marshal(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, to); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
}

// TestMCPLimits: /mcp is limited as every API route is, one charge per
// MCP request, and takes the API's keys: past the free tier's limit a
// client gets the API's 429 problem, and a key that is no key a 401.
func TestMCPLimits(t *testing.T) {
	cfg := api.DefaultConfig()
	cfg.Limits.Anonymous = access.Rate{Limit: 2, Window: time.Minute, Burst: 2}
	url := "http://" + serveOn(t, &cfg, serving(t, baseEvents()...)) + "/mcp"
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`
	mcpHeaders := []string{"Content-Type", "application/json", "Accept", "application/json, text/event-stream", "Mcp-Protocol-Version", "2025-06-18"}
	for i := range 2 {
		if resp, body := call(t, http.MethodPost, url, list, mcpHeaders...); resp.StatusCode != http.StatusOK {
			t.Fatalf("request %d: %d %s", i+1, resp.StatusCode, body)
		}
	}
	resp, body := call(t, http.MethodPost, url, list, mcpHeaders...)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(body), contracts.CodeRateLimited) {
		t.Errorf("past the limit: %d %s, want the API's 429 problem with Retry-After", resp.StatusCode, body)
	}
	resp, body = call(t, http.MethodPost, url, list, append(mcpHeaders, "Authorization", "Bearer zp_nonsense")...)
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(body), contracts.CodeInvalidAPIKey) {
		t.Errorf("a key that is no key: %d %s, want the API's 401 problem", resp.StatusCode, body)
	}
}
