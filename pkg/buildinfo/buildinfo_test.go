package buildinfo

import (
	"runtime"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

func TestRead(t *testing.T) {
	i := Read()
	if i.GoVersion != runtime.Version() {
		t.Errorf("GoVersion = %q, want %q", i.GoVersion, runtime.Version())
	}
	if i.Version == "" || i.Revision == "" {
		t.Errorf("Read() = %+v: empty fields", i)
	}
	old, oldRevision := Version, Revision
	defer func() { Version, Revision = old, oldRevision }()
	Version, Revision = "v9.9.9", "0123abc"
	if got := Read().Version; got != "v9.9.9" {
		t.Errorf("with Version set by ldflags, Read().Version = %q", got)
	}
	// A test binary has no VCS stamp: the revision set by ldflags is used.
	if got := Read().Revision; got != "0123abc" {
		t.Errorf("with Revision set by ldflags, Read().Revision = %q", got)
	}
}

func TestCollector(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(Info{Version: "v1.2.3", Revision: "abc", GoVersion: "go1.26"}.Collector())
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	if len(mfs) != 1 || mfs[0].GetName() != "exercisedb_build_info" || len(mfs[0].Metric) != 1 {
		t.Fatalf("gathered %v", mfs)
	}
	m := mfs[0].Metric[0]
	var labels []string
	for _, l := range m.Label {
		labels = append(labels, l.GetName()+"="+l.GetValue())
	}
	if got := strings.Join(labels, ","); got != "goversion=go1.26,revision=abc,version=v1.2.3" || m.GetGauge().GetValue() != 1 {
		t.Errorf("exercisedb_build_info{%s} %v", got, m.GetGauge().GetValue())
	}
}
