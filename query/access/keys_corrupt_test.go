package access_test

import (
	"bufio"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/contracts/bus"
	"github.com/zoneprice/zoneprice/contracts/bus/bustest"
	"github.com/zoneprice/zoneprice/query/access"
	"github.com/zoneprice/zoneprice/query/querytest"
)

// TestKeysCorruptBucket damages the keys bucket in the NATS server's file
// store while the server is down, and starts a pod on it: one record's
// bytes flipped, as bit rot would (the server still counts the record,
// but a consumer skips it without an error, so a watch of the bucket never
// gets to the end of its initial values), or the block cut in the middle
// of a record, as a crash would (the server counts what was cut as
// deleted, so a watch ends early, short of the stream's last revision). The pod must not wait for it forever: it
// gives up the load, is ready with keys unavailable, says in its log what
// is wrong and how to repair it, and once the bucket is repaired it loads
// the keys.
func TestKeysCorruptBucket(t *testing.T) {
	tests := []struct {
		name    string
		damaged int // which of the three records
		damage  func(testing.TB, *server.Server, string, []byte) *server.Server
		says    string
	}{
		{"first record", 0, bustest.DamageValue, "no record for"},
		{"middle record", 1, bustest.DamageValue, "no record for"},
		{"last record", 2, bustest.DamageValue, "no record for"},
		// A crash that cut the last block in the middle of a record: the
		// server counts the records from there on as deleted, and says
		// nothing else.
		{"tail cut in the middle record", 1, bustest.Truncate, "are lost"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, js := bustest.Provisioned(t)
			kv := bucket(t, js)
			var keys []string
			var recs []contracts.APIKey
			for range 3 {
				key, rec := create(t, kv, contracts.ProTier)
				keys, recs = append(keys, key), append(recs, rec)
			}
			st, err := kv.Status(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			name := st.(*jetstream.KeyValueBucketStatus).StreamInfo().Config.Name
			value, err := json.Marshal(recs[tt.damaged])
			if err != nil {
				t.Fatal(err)
			}
			srv = tt.damage(t, srv, name, value)
			_, js = bustest.Connect(t, srv)

			var logs querytest.LogBuffer
			p := startKeys(t, js, slog.New(slog.NewJSONHandler(&logs, nil)), func(k *access.Keys) {
				k.SetLoadTimeout(500 * time.Millisecond)
			})
			querytest.Until(t, "the pod ready despite the damaged bucket", p.keys.IsReady)
			if got := p.keys.State(); got != access.Unavailable {
				t.Fatalf("state with a record that cannot be read: got %v, want Unavailable", got)
			}
			for i, key := range keys {
				if got := p.tier(key); got != "" {
					t.Errorf("key %d while the keys are unavailable: tier %q, want none (answered 503)", i, got)
				}
			}
			if got := gauge(t, p.reg, "zoneprice_api_keys_watch_up"); got != 0 {
				t.Errorf("zoneprice_api_keys_watch_up: got %v, want 0", got)
			}
			var logged map[string]any
			querytest.Until(t, "an error logged", func() bool {
				logged = errorRecord(t, logs.String())
				return logged != nil
			})
			if got := logged["bucket"]; got != contracts.KeysBucket {
				t.Errorf("the error's bucket: got %v, want %s", got, contracts.KeysBucket)
			}
			if got, _ := logged["err"].(string); !strings.Contains(got, tt.says) || !strings.Contains(got, name) {
				t.Errorf("the error's err: got %q, want it to say %q and name the stream %s", got, tt.says, name)
			}
			repair, _ := logged["repair"].(string)
			for _, want := range []string{"nats kv rm " + contracts.KeysBucket, "zoneprice-admin keys create"} {
				if !strings.Contains(repair, want) {
					t.Errorf("the error's repair: got %q, want it to mention %q", repair, want)
				}
			}

			// The repair the log suggests: delete the bucket and issue
			// the keys again, which creates it anew.
			if err := js.DeleteKeyValue(context.Background(), contracts.KeysBucket); err != nil {
				t.Fatal(err)
			}
			kv, err = bus.ProvisionKeys(context.Background(), js, bus.Options{})
			if err != nil {
				t.Fatal(err)
			}
			key, _ := create(t, kv, contracts.ProTier)
			querytest.Until(t, "the keys once the bucket is repaired", func() bool {
				return p.keys.State() == access.Loaded && p.tier(key) == contracts.ProTier
			})
			if got := gauge(t, p.reg, "zoneprice_api_keys_watch_up"); got != 1 {
				t.Errorf("zoneprice_api_keys_watch_up once loaded: got %v, want 1", got)
			}
		})
	}
}

// errorRecord is the first record logged at level ERROR in logs, a JSON
// log, or nil.
func errorRecord(t *testing.T, logs string) map[string]any {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(logs))
	for sc.Scan() {
		var r map[string]any
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		if r["level"] == "ERROR" {
			return r
		}
	}
	return nil
}
