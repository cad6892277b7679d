package contracts_test

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
)

func TestNewAPIKey(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 500, time.FixedZone("x", 3600))
	key, rec, err := contracts.NewAPIKey(contracts.ProTier, "acme corp", now)
	if err != nil {
		t.Fatal(err)
	}
	// 160 random bits in base32 are 32 characters.
	if secret, ok := strings.CutPrefix(key, contracts.APIKeyPrefix); !ok || len(secret) != 32 || strings.Trim(secret, "abcdefghijklmnopqrstuvwxyz234567") != "" {
		t.Errorf("key %q: want zp_ and 32 lower-case base32 characters", key)
	}
	sum := contracts.HashAPIKey(key)
	if rec.Hash != hex.EncodeToString(sum[:]) || strings.Contains(rec.Hash, key) {
		t.Errorf("record hash %q is not the key's SHA-256", rec.Hash)
	}
	if got, err := rec.Sum(); err != nil || got != sum {
		t.Errorf("Sum: got %x, %v; want %x", got, err, sum)
	}
	if rec.Tier != "pro" || rec.Note != "acme corp" || !rec.CreatedAt.Equal(now.Truncate(time.Second)) || rec.CreatedAt.Location() != time.UTC {
		t.Errorf("record %+v: want tier, note and the creation second in UTC", rec)
	}
	if err := rec.Validate(); err != nil {
		t.Errorf("a new record does not validate: %v", err)
	}
	key2, rec2, _ := contracts.NewAPIKey(contracts.ProTier, "", now)
	if key2 == key || rec2.ID == rec.ID {
		t.Error("two new keys are the same")
	}
	if _, _, err := contracts.NewAPIKey("Pro Plus", "", now); err == nil {
		t.Error("a key of an invalid tier was made")
	}
}

func TestAPIKeyValidate(t *testing.T) {
	_, good, err := contracts.NewAPIKey(contracts.StandardTier, "ok", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		change func(*contracts.APIKey)
		field  string
	}{
		{"valid", func(*contracts.APIKey) {}, ""},
		{"short id", func(k *contracts.APIKey) { k.ID = "abc" }, "id"},
		{"id with a dot", func(k *contracts.APIKey) { k.ID = "abcdefgh.ij" }, "id"},
		{"upper-case hash", func(k *contracts.APIKey) { k.Hash = strings.ToUpper(k.Hash) }, "hash"},
		{"short hash", func(k *contracts.APIKey) { k.Hash = k.Hash[:63] }, "hash"},
		{"no tier", func(k *contracts.APIKey) { k.Tier = "" }, "tier"},
		{"tier with a space", func(k *contracts.APIKey) { k.Tier = "pro plus" }, "tier"},
		{"no creation time", func(k *contracts.APIKey) { k.CreatedAt = time.Time{} }, "created_at"},
		{"long note", func(k *contracts.APIKey) { k.Note = strings.Repeat("x", contracts.MaxNoteLen+1) }, "note"},
		{"terminal escape in the note", func(k *contracts.APIKey) { k.Note = "acme\x1b[2J" }, "note"},
		{"note not UTF-8", func(k *contracts.APIKey) { k.Note = "\xff" }, "note"},
		{"unicode note", func(k *contracts.APIKey) { k.Note = "Société Générale — 東京" }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := good
			tt.change(&k)
			err := k.Validate()
			var ve *contracts.ValidationError
			switch {
			case tt.field == "" && err != nil:
				t.Errorf("Validate: %v, want valid", err)
			case tt.field != "" && (!errors.As(err, &ve) || ve.Field != tt.field):
				t.Errorf("Validate: %v, want a problem with %s", err, tt.field)
			}
		})
	}
}
