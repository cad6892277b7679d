package contracts

import (
	"strings"
	"testing"
)

func TestWebhookKey(t *testing.T) {
	for _, tt := range []struct {
		name, key, owner, id string
		ok                   bool
	}{
		{"made by WebhookKey", WebhookKey("4d930e71934acb20", "wh_0123456789abcdef"), "4d930e71934acb20", "wh_0123456789abcdef", true},
		{"an ID alone", "wh_0123456789abcdef", "", "", false},
		{"owner not a key id", "4D93.wh_0123456789abcdef", "", "", false},
		{"ID not a webhook id", "4d930e71934acb20.wh_0123", "", "", false},
		{"a dot too many", "4d930e71934acb20.wh_0123456789abcdef.x", "", "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			owner, id, ok := ParseWebhookKey(tt.key)
			if owner != tt.owner || id != tt.id || ok != tt.ok {
				t.Errorf("ParseWebhookKey(%q) = %q, %q, %v, want %q, %q, %v", tt.key, owner, id, ok, tt.owner, tt.id, tt.ok)
			}
		})
	}
}

func TestNewPingDeliveryID(t *testing.T) {
	a, err := NewPingDeliveryID()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewPingDeliveryID()
	if a == b || len(a) != len(DeliveryID("wh_0123456789abcdef", 1)) {
		t.Errorf("ping ids %q and %q: want distinct and as long as a DeliveryID", a, b)
	}
}

func TestParseDeliverySubject(t *testing.T) {
	for _, tt := range []struct {
		name, subject, owner, id string
		ok                       bool
	}{
		{"made by DeliverySubject", DeliverySubject("4d930e71934acb20", "wh_0123456789abcdef"), "4d930e71934acb20", "wh_0123456789abcdef", true},
		{"queued before the key was in it", "deliveries.v1.wh_0123456789abcdef", "", "wh_0123456789abcdef", true},
		{"an attempt's", AttemptSubject("wh_0123456789abcdef"), "", "", false},
		{"owner not a key id", "deliveries.v1.4D93.wh_0123456789abcdef", "", "", false},
		{"ID not a webhook id", "deliveries.v1.4d930e71934acb20.wh_0123", "", "", false},
		{"a token too many", "deliveries.v1.4d930e71934acb20.wh_0123456789abcdef.x", "", "", false},
		{"owner of 64 characters", "deliveries.v1." + strings.Repeat("a9", 32) + ".wh_0123456789abcdef", strings.Repeat("a9", 32), "wh_0123456789abcdef", true},
		{"owner of 7 characters", "deliveries.v1.4d930e7.wh_0123456789abcdef", "", "", false},
		{"owner of 65 characters", "deliveries.v1." + strings.Repeat("a", 65) + ".wh_0123456789abcdef", "", "", false},
		{"owner with a dash", "deliveries.v1.4d930e71-34acb20.wh_0123456789abcdef", "", "", false},
		{"ID in capitals", "deliveries.v1.4d930e71934acb20.wh_0123456789ABCDEF", "", "", false},
		{"ID with a g", "deliveries.v1.4d930e71934acb20.wh_0123456789abcdeg", "", "", false},
		{"ID a digit too long", "deliveries.v1.4d930e71934acb20.wh_0123456789abcdef0", "", "", false},
		{"ID without wh_", "deliveries.v1.4d930e71934acb20.xx_0123456789abcdef", "", "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			owner, id, ok := ParseDeliverySubject(tt.subject)
			if owner != tt.owner || id != tt.id || ok != tt.ok {
				t.Errorf("ParseDeliverySubject(%q) = %q, %q, %v, want %q, %q, %v", tt.subject, owner, id, ok, tt.owner, tt.id, tt.ok)
			}
		})
	}
}
