package ingesttest

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/ingest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata from what the parser gives")

// goldenObserved is when every golden list was observed.
var goldenObserved = time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)

// Golden parses every fixture in testdata matching pattern and compares
// what a round would put on the stream with testdata/<fixture>.golden:
// each price set's subject and encoded bytes, the subjects kept, the rows
// skipped and the names outside the root, or only "error" for a fixture
// the parser refuses (its message is the parser's to word). A parser
// rewritten on other code must leave them byte for byte; go test -update
// rewrites them.
func Golden(t *testing.T, parse ingest.ParseFunc, pattern string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", pattern))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures match %s: %v", pattern, err)
	}
	for _, path := range files {
		if filepath.Ext(path) == ".golden" {
			continue
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			body, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			got := streamed(t, parse, body)
			golden := path + ".golden"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test -update writes it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("what %s puts on the stream differs from %s:\n%s", path, golden, firstDiff(got, want))
			}
		})
	}
}

// streamed is what one parse of body gives the runner, as text.
func streamed(t *testing.T, parse ingest.ParseFunc, body []byte) []byte {
	t.Helper()
	list, err := parse(body, goldenObserved)
	if err != nil {
		return []byte("error\n")
	}
	var b bytes.Buffer
	for _, p := range list.Prices {
		m, err := contracts.Encode(&p)
		if err != nil {
			fmt.Fprintf(&b, "invalid %s: %v\n", p.Subject(), err)
			continue
		}
		fmt.Fprintf(&b, "%s %s\n", m.Subject, m.Body)
	}
	for _, r := range list.Rates {
		m, err := contracts.Encode(&r)
		if err != nil {
			fmt.Fprintf(&b, "invalid %s: %v\n", r.Subject(), err)
			continue
		}
		fmt.Fprintf(&b, "%s %s\n", m.Subject, m.Body)
	}
	for _, k := range list.Keep {
		fmt.Fprintf(&b, "keep %s\n", k)
	}
	for _, o := range list.Outside {
		fmt.Fprintf(&b, "outside %s %s %s\n", o.Registrar, o.Name, o.Reason)
	}
	fmt.Fprintf(&b, "skipped %d\n", list.Skipped)
	return b.Bytes()
}

// firstDiff shows the first line where got and want differ.
func firstDiff(got, want []byte) string {
	g, w := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := range max(len(g), len(w)) {
		var gl, wl []byte
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if !bytes.Equal(gl, wl) {
			return fmt.Sprintf("line %d:\n got  %s\n want %s", i+1, gl, wl)
		}
	}
	return ""
}
