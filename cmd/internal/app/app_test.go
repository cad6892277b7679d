package app_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/zoneprice/zoneprice/cmd/internal/app"
)

func TestSecret(t *testing.T) {
	file := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(file, []byte("from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		env     map[string]string
		want    string
		wantErr bool
	}{
		{"unset", nil, "", false},
		{"variable", map[string]string{"KEY": "from-env"}, "from-env", false},
		{"file, trimmed", map[string]string{"KEY_FILE": file}, "from-file", false},
		{"both", map[string]string{"KEY": "x", "KEY_FILE": file}, "", true},
		{"missing file", map[string]string{"KEY_FILE": file + ".missing"}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := app.Secret(func(k string) string { return tt.env[k] }, "KEY")
			if (err != nil) != tt.wantErr {
				t.Fatalf("Secret: err = %v, want error %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("Secret = %q, want %q", got, tt.want)
			}
		})
	}
}
