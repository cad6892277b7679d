package deploy

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/rulefmt"
	"go.yaml.in/yaml/v3"
)

// ruleTests holds the promtool unit tests of alerts.yml, beside it in
// deploy/prometheus.
const ruleTests = "alerts_test.yml"

// promtool runs Prometheus's promtool in deploy/prometheus. A missing
// promtool fails the test rather than skipping it: the rules would then be
// parsed but never evaluated, and a skip reads as a pass.
func promtool(t *testing.T, args ...string) (string, error) {
	t.Helper()
	path, err := exec.LookPath("promtool")
	if err != nil {
		t.Fatalf("promtool is not on PATH, so the alert rules cannot be evaluated: "+
			"`make tools-test` installs it (Debian's prometheus package), and `make test` does that first: %v", err)
	}
	cmd := exec.CommandContext(t.Context(), path, args...)
	cmd.Dir = "prometheus"
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestAlertRulesPromtool checks the rules with promtool and evaluates them
// over the synthetic series of prometheus/alerts_test.yml.
func TestAlertRulesPromtool(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"check", []string{"check", "rules", "alerts.yml"}},
		{"evaluate", []string{"test", "rules", ruleTests}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := promtool(t, tc.args...)
			if err != nil {
				t.Fatalf("promtool %s: %v\n%s", strings.Join(tc.args, " "), err, out)
			}
		})
	}
}

// TestAlertRuleTestsCoverEveryAlert checks that alerts_test.yml tests the
// rules of alerts.yml, each alert in at least one test where it fires and
// one where it does not, so that a new alert cannot go untested.
func TestAlertRuleTestsCoverEveryAlert(t *testing.T) {
	data, err := os.ReadFile("prometheus/alerts.yml")
	if err != nil {
		t.Fatal(err)
	}
	groups, errs := rulefmt.Parse(data, false, model.UTF8Validation)
	if len(errs) > 0 {
		t.Fatalf("alerts.yml: %v", errs)
	}
	data, err = os.ReadFile("prometheus/" + ruleTests)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		RuleFiles []string `yaml:"rule_files"`
		Tests     []struct {
			AlertRuleTest []struct {
				Alertname string `yaml:"alertname"`
				ExpAlerts []any  `yaml:"exp_alerts"`
			} `yaml:"alert_rule_test"`
		} `yaml:"tests"`
	}
	if err := yaml.Unmarshal(data, &file); err != nil {
		t.Fatalf("%s: %v", ruleTests, err)
	}
	if got, want := file.RuleFiles, []string{"alerts.yml"}; !slices.Equal(got, want) {
		t.Errorf("%s tests rule files %q, want %q", ruleTests, got, want)
	}
	// A quiet case is a test in which the alert never fires, not only the
	// minutes before a firing case's for: runs out.
	fires, quiet := map[string]bool{}, map[string]bool{}
	for _, tc := range file.Tests {
		fired := map[string]bool{}
		for _, at := range tc.AlertRuleTest {
			fired[at.Alertname] = fired[at.Alertname] || len(at.ExpAlerts) > 0
		}
		for name, f := range fired {
			if f {
				fires[name] = true
			} else {
				quiet[name] = true
			}
		}
	}
	for _, g := range groups.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" {
				continue
			}
			if !fires[r.Alert] {
				t.Errorf("%s has no test in which %s fires", ruleTests, r.Alert)
			}
			if !quiet[r.Alert] {
				t.Errorf("%s has no test in which %s does not fire", ruleTests, r.Alert)
			}
		}
	}
}
