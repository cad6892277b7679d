package deploy

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// makeVar returns the value a Makefile line `NAME ?= value` or
// `NAME := value` gives.
func makeVar(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^` + name + `\s*[?:]?=\s*(.*)$`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("the Makefile sets no %s", name)
	}
	return strings.TrimSpace(string(m[1]))
}

// TestImages checks the Dockerfiles against the commands they package and
// the Makefile that builds them.
func TestImages(t *testing.T) {
	if got := makeVar(t, "IMAGE_REPO"); got != "zoneprice" {
		t.Errorf("IMAGE_REPO %q; the deployment files name zoneprice/…", got)
	}
	cmds := makeVar(t, "IMAGE_CMDS")
	// The ports each image exposes: the defaults of its command's flags.
	exposes := map[string][]string{
		"query":       {port(t, flagDefault(t, "zoneprice-query", "listen"))},
		"ingest":      {port(t, flagDefault(t, "zoneprice-ingest", "metrics-listen"))},
		"notify":      {port(t, flagDefault(t, "zoneprice-notify", "metrics-listen"))},
		"lb":          {port(t, flagDefault(t, "zoneprice-lb", "listen"))},
		"admin":       nil,
		"nats-server": {"4222", "6222", "8222"},
	}
	for _, image := range builtImages(t) {
		name := strings.TrimPrefix(image, "zoneprice/")
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("docker", name+".Dockerfile"))
			if err != nil {
				t.Fatal(err)
			}
			df := string(b)
			binary := "zoneprice-" + name
			if name == "nats-server" {
				binary = "nats-server"
			} else {
				if _, err := os.Stat(filepath.Join("../cmd", binary, "main.go")); err != nil {
					t.Errorf("no command cmd/%s to package", binary)
				}
				if !slices.Contains(strings.Fields(cmds), name) && !strings.Contains(cmds, ","+name+")") {
					t.Errorf("the Makefile's IMAGE_CMDS (%s) does not build %s", cmds, name)
				}
			}
			for _, want := range []string{
				"FROM scratch\n", "USER 65532:65532\n", `ENTRYPOINT ["/` + binary + `"]`,
				"org.opencontainers.image.title=", "org.opencontainers.image.source=",
				`org.opencontainers.image.revision="${REVISION}"`, `org.opencontainers.image.version="${VERSION}"`,
			} {
				if !strings.Contains(df, want) {
					t.Errorf("no %s", strings.TrimSpace(want))
				}
			}
			var got []string
			if m := regexp.MustCompile(`(?m)^EXPOSE (.*)$`).FindStringSubmatch(df); m != nil {
				got = strings.Fields(m[1])
			}
			want, known := exposes[name]
			if !known {
				t.Fatalf("this test does not know what %s should expose", name)
			}
			if !slices.Equal(got, want) {
				t.Errorf("EXPOSE %v, want %v", got, want)
			}
			if (name == "ingest" || name == "notify") && !strings.Contains(df, "/etc/ssl/certs/ca-certificates.crt") {
				t.Errorf("%s connects over HTTPS but its image has no CA certificates", binary)
			}
			// The commands that send subscription mail: the relay's TLS
			// needs the CAs, and an outbox volume (deploy/compose) a
			// directory the image's user owns.
			if name == "query" || name == "notify" || name == "admin" {
				if !strings.Contains(df, "/etc/ssl/certs/ca-certificates.crt") {
					t.Errorf("%s sends mail through an SMTP relay over TLS but its image has no CA certificates", binary)
				}
				if !strings.Contains(df, "COPY --chown=65532:65532 outbox "+outboxDir+"\n") {
					t.Errorf("%s writes mail to an outbox, but its image has no directory %s owned by its user", binary, outboxDir)
				}
			}
		})
	}
}

// TestImageTags checks that the compose file and the kustomization run the
// tag make images gives.
func TestImageTags(t *testing.T) {
	tag := makeVar(t, "IMAGE_TAG")
	for name, s := range composeConfig(t, natsKeys(t)) {
		if strings.HasPrefix(s.Image, "zoneprice/") && !strings.HasSuffix(s.Image, ":"+tag) {
			t.Errorf("compose service %s runs %s, not the tag %s that make images gives", name, s.Image, tag)
		}
	}
	k, _ := k8sFiles(t)
	for _, img := range k.Images {
		if img.NewTag != tag {
			t.Errorf("the kustomization tags %s %s, not %s", img.Name, img.NewTag, tag)
		}
	}
}
