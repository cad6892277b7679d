package api_test

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"testing"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/openapitest"
)

// TestGeneratedClients generates a Go client from the served OpenAPI
// document with each generator contracts/openapitest/generators pins
// (oapi-codegen and ogen, with their default settings), vets and builds
// both, and reads a pod serving the sample, as `make run` does, through
// them (testdata/generated-client): what they decode must be what the
// server sent. Generating and building takes a while the first time
// (the generators, echo v4, ogen's runtime), little once cached.
func TestGeneratedClients(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and builds two clients")
	}
	p := samplePod(t)
	resp, doc := get(t, p.url+"/api/openapi.json")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /api/openapi.json: %d", resp.StatusCode)
	}
	caller, err := os.ReadFile("testdata/generated-client/main.go")
	if err != nil {
		t.Fatal(err)
	}
	clients := openapitest.GenerateClients(t, doc, map[string][]byte{"cmd/generated-client/main.go": caller})

	cmd := exec.CommandContext(t.Context(), clients.Bin("generated-client"), p.url)
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("generated-client: %v\n%s", err, stderr)
	}
	var got struct {
		Zones            []string  `json:"zones"`
		ComRegistrars    []string  `json:"com_registrars"`
		ComRegister      []float64 `json:"com_register"`
		MalformedCode    string    `json:"malformed_code"`
		MalformedParam   string    `json:"malformed_param"`
		Changes          []string  `json:"changes"`
		OapiCodegenZones int       `json:"oapi_codegen_zones"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("generated-client printed %s: %v", out, err)
	}

	// What the server sent, decoded here.
	var catalog struct {
		Zones []struct {
			Zone string `json:"zone"`
		} `json:"zones"`
	}
	_, body := get(t, p.url+"/api/domains")
	decode(t, body, &catalog)
	var zones []string
	for _, z := range catalog.Zones {
		zones = append(zones, z.Zone)
	}
	if !slices.Contains(got.Zones, ".com") || !slices.Equal(got.Zones, zones) {
		t.Errorf("ogen's /api/domains: got %d zones %.80v, want .com among the server's %d", len(got.Zones), got.Zones, len(zones))
	}
	if got.OapiCodegenZones != len(zones) {
		t.Errorf("oapi-codegen's /api/domains: got %d zones, want %d", got.OapiCodegenZones, len(zones))
	}

	var cmp struct {
		Prices []struct {
			Registrar string       `json:"registrar"`
			Register  *json.Number `json:"register"`
		} `json:"prices"`
	}
	_, body = get(t, p.url+"/api/comparison/com")
	decode(t, body, &cmp)
	var registrars []string
	var register []float64
	for _, row := range cmp.Prices {
		registrars = append(registrars, row.Registrar)
		price := 0.0
		if row.Register != nil {
			if price, err = strconv.ParseFloat(row.Register.String(), 64); err != nil {
				t.Fatal(err)
			}
		}
		register = append(register, price)
	}
	if len(registrars) < 2 || !slices.Equal(got.ComRegistrars, registrars) || !slices.Equal(got.ComRegister, register) {
		t.Errorf("ogen's /api/comparison/com: got rows %v priced %v, want %v priced %v", got.ComRegistrars, got.ComRegister, registrars, register)
	}
	if got.MalformedCode != contracts.CodeMalformedZone || got.MalformedParam != "zone" {
		t.Errorf("ogen's /api/comparison/exa_mple: got code %q param %q, want %s zone", got.MalformedCode, got.MalformedParam, contracts.CodeMalformedZone)
	}

	var changes struct {
		Changes []struct {
			ID string `json:"id"`
		} `json:"changes"`
	}
	_, body = get(t, p.url+"/api/changes?kind=added&since=2000-01-01&limit=5")
	decode(t, body, &changes)
	var ids []string
	for _, c := range changes.Changes {
		ids = append(ids, c.ID)
	}
	if len(ids) == 0 || !slices.Equal(got.Changes, ids) {
		t.Errorf("ogen's /api/changes: got %v, want %v", got.Changes, ids)
	}
}
