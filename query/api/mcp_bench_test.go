package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/eventtest"
	"github.com/zoneprice/zoneprice/query/access"
	"github.com/zoneprice/zoneprice/query/api"
)

// BenchmarkMCPCompareZone calls compare_zone for a zone of 150 registrars,
// as make bench does, in process: through the whole server, and through
// the MCP SDK's own stateless handler whose one tool returns the same
// result (the same bytes), the baseline of make bench's MCP row.
func BenchmarkMCPCompareZone(b *testing.B) {
	var events []contracts.Event
	for i := range 150 {
		events = append(events, eventtest.Priced(fmt.Sprintf("registrar-%03d", i), ".aaa", epoch, "USD", int64(900+i), int64(1000+i), int64(950+i)))
	}
	cfg := api.DefaultConfig()
	cfg.Limits.Anonymous = access.Rate{}
	reg := prometheus.NewRegistry()
	srv, err := api.NewServer(cfg, serving(b, events...), nil, nil, slog.New(slog.DiscardHandler), reg, reg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(srv.Close)
	const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"compare_zone","arguments":{"zone":".aaa"}}}`
	post := func(h http.Handler) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(call))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	real := srv.Handler()
	first := post(real)
	var answer struct {
		Result struct {
			StructuredContent json.RawMessage `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(first.Body.Bytes(), &answer); err != nil || first.Code != http.StatusOK || len(answer.Result.StructuredContent) < 10000 {
		b.Fatalf("%d %.300s: %v", first.Code, first.Body.Bytes(), err)
	}
	structured := answer.Result.StructuredContent
	bareSrv := sdk.NewServer(&sdk.Implementation{Name: "bare", Version: "1"}, nil)
	bareSrv.AddTool(&sdk.Tool{Name: "compare_zone", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{StructuredContent: structured, Content: []sdk.Content{&sdk.TextContent{Text: string(structured)}}}, nil
		})
	bare := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return bareSrv },
		&sdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	if got := post(bare); got.Body.String() != first.Body.String() {
		b.Fatalf("the bare handler answers %d bytes, the server %d", got.Body.Len(), first.Body.Len())
	}
	for _, h := range []struct {
		name string
		h    http.Handler
	}{{"server", real}, {"bare", bare}} {
		b.Run(h.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				post(h.h)
			}
		})
	}
}
