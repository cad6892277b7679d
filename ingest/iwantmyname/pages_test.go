package iwantmyname_test

import (
	"encoding/json"
	"maps"
	"testing"

	"github.com/zoneprice/zoneprice/ingest/ingesttest"
)

// onePage is the two pages of the fixture as one page holding every row,
// as a saved whole list may be.
func onePage(t testing.TB) []byte {
	t.Helper()
	rows := map[string]json.RawMessage{}
	var total json.Number
	for _, name := range []string{"page1.json", "page2.json"} {
		var p struct {
			TotalRows json.Number                `json:"totalRows"`
			Rows      map[string]json.RawMessage `json:"rows"`
		}
		if err := json.Unmarshal(ingesttest.Fixture(t, name), &p); err != nil {
			t.Fatal(err)
		}
		maps.Copy(rows, p.Rows)
		total = p.TotalRows
	}
	if n, err := total.Int64(); err != nil || int64(len(rows)) != n {
		t.Fatalf("the fixture's pages hold %d rows of %s", len(rows), total)
	}
	b, err := json.Marshal(map[string]any{"totalRows": total, "rows": rows})
	if err != nil {
		t.Fatal(err)
	}
	return b
}
