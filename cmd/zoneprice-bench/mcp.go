package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zoneprice/zoneprice/cmd/internal/cmdtest"
)

// The MCP row: a tools/call comparing one zone through the real service's
// /mcp (its whole chain: echo, limits, the arguments read as the route's
// options, the snapshot, the official go-sdk's Streamable HTTP handler)
// against that SDK's own handler, stateless and answering JSON as the
// service's does, whose one tool returns the result the real server
// returned. The two answer with the same bytes.

// targetMCPRatio is the least real/bare rate of the MCP call.
const targetMCPRatio = 0.8

// mcpRequest is the JSON-RPC request of a tools/call comparing zone.
func mcpRequest(zone string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"compare_zone","arguments":{"zone":` + strconv.Quote(zone) + `}}}`
}

// mcpHeaders are the headers of an MCP request over Streamable HTTP.
var mcpHeaders = [][2]string{
	{"Content-Type", "application/json"},
	{"Accept", "application/json, text/event-stream"},
	{"Mcp-Protocol-Version", "2025-06-18"},
}

// postMCP posts an MCP request to url and returns the answer's body; it
// fails on anything but 200.
func postMCP(ctx context.Context, client *http.Client, url, request string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader([]byte(request)))
	if err != nil {
		return nil, err
	}
	for _, h := range mcpHeaders {
		req.Header.Set(h[0], h[1])
	}
	resp, err := fetch(client, req)
	if err != nil {
		return nil, err
	}
	return resp.body, nil
}

// bareMCP is the go-sdk's Streamable HTTP handler of one tool, the one
// request calls, which returns the result the real service at from
// answered request with.
func bareMCP(ctx context.Context, client *http.Client, from, request string) (http.Handler, error) {
	body, err := postMCP(ctx, client, from+"/mcp", request)
	if err != nil {
		return nil, err
	}
	var answer struct {
		Result *struct {
			StructuredContent json.RawMessage `json:"structuredContent"`
			IsError           bool            `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &answer); err != nil {
		return nil, fmt.Errorf("the MCP answer: %w", err)
	}
	if answer.Result == nil || answer.Result.IsError || len(answer.Result.StructuredContent) == 0 {
		return nil, fmt.Errorf("the MCP call failed: %.300s", body)
	}
	var call struct {
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if err := json.Unmarshal([]byte(request), &call); err != nil || call.Params.Name == "" {
		return nil, errors.New("the MCP request names no tool")
	}
	structured := answer.Result.StructuredContent
	srv := sdk.NewServer(&sdk.Implementation{Name: "bare", Version: "1"}, nil)
	srv.AddTool(&sdk.Tool{Name: call.Params.Name, InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{StructuredContent: structured, Content: []sdk.Content{&sdk.TextContent{Text: string(structured)}}}, nil
		})
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv },
		&sdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true}), nil
}

// sameMCP checks that the real and the bare server answer request with
// the same bytes, and returns their size.
func sameMCP(ctx context.Context, client *http.Client, realURL, bareURL, request string) (int, error) {
	r, err := postMCP(ctx, client, realURL+"/mcp", request)
	if err != nil {
		return 0, err
	}
	b, err := postMCP(ctx, client, bareURL+"/mcp", request)
	if err != nil {
		return 0, err
	}
	if !bytes.Equal(r, b) {
		return 0, fmt.Errorf("/mcp: answers differ (real %d bytes, bare %d bytes)", len(r), len(b))
	}
	return len(r), nil
}

// startBareMCP runs the MCP call's baseline: a bare server of its own,
// serving the SDK's handler (and /healthz, to wait for), whose heap may
// grow between collections as much as the pod's (-gc-headroom): about
// what the pod held live after its last collection.
func (b *bench) startBareMCP(ctx context.Context, q *child, request string) (*child, error) {
	headroom := int64(0)
	if m, err := scrape(ctx, q.metrics()+"/metrics", "go_memstats_next_gc_bytes"); err == nil {
		headroom = int64(m[0]) / 2
	}
	addr, err := cmdtest.PortAddr()
	if err != nil {
		return nil, err
	}
	c, err := startChild(b.tmp, "bare-mcp", "http://"+addr, b.self, bareCommand, "-from", q.url, "-listen", addr,
		"-mcp", request, "-gc-headroom", strconv.FormatInt(headroom, 10), "/healthz")
	if err != nil {
		return nil, err
	}
	if err := c.waitOK(ctx, "/healthz"); err != nil {
		c.stop()
		return nil, err
	}
	return c, nil
}

// mcpScript writes the Lua script with which wrk posts request, and
// returns its path.
func (b *bench) mcpScript(request string) (string, error) {
	script := "wrk.method = \"POST\"\nwrk.body = " + luaString(request) + "\n"
	for _, h := range mcpHeaders {
		script += "wrk.headers[" + luaString(h[0]) + "] = " + luaString(h[1]) + "\n"
	}
	path := filepath.Join(b.tmp, "mcp.lua")
	return path, os.WriteFile(path, []byte(script), 0o644)
}

// luaString is s as a Lua string literal: Go's quoting, whose escapes
// (\", \\, \n, \t, \xNN) Lua reads the same for the ASCII text it is
// given here.
func luaString(s string) string { return strconv.QuoteToASCII(s) }
