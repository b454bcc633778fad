// Package buildinfo says which build a binary is: its version, the commit it
// was built from and the Go version, for -version and the
// exercisedb_build_info metric.
package buildinfo

import (
	"cmp"
	"fmt"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
)

// Version is the release version; release builds set it with
// -ldflags "-X github.com/exercisedb/exercisedb/pkg/buildinfo.Version=v1.2.3".
// When it is empty, the module version recorded by the Go toolchain is used
// ("(devel)" for a build from a checkout).
var Version string

// Revision is the commit, for builds without VCS data (a Docker build,
// whose context has no .git): set it like Version. Go's own VCS stamp
// wins when there is one.
var Revision string

// Info describes a build.
type Info struct {
	Version   string // release or module version; "(devel)" from a checkout
	Revision  string // VCS commit, with "-dirty" if the tree had changes; "unknown" without VCS data
	GoVersion string
}

// Read returns the running binary's build information. The revision comes
// from the VCS stamp Go writes into binaries built from a checkout (go build
// with -buildvcs, the default), so no build script is needed for it.
func Read() Info {
	info := Info{Version: Version, Revision: cmp.Or(Revision, "unknown"), GoVersion: "unknown"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return info
	}
	info.GoVersion = bi.GoVersion
	info.Version = cmp.Or(info.Version, bi.Main.Version, "(devel)")
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.Revision = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if dirty && info.Revision != "unknown" {
		info.Revision += "-dirty"
	}
	return info
}

// String is the one line -version prints: "<binary> <version> <revision> <go version>".
func (i Info) String() string {
	return fmt.Sprintf("%s (commit %s, %s)", i.Version, i.Revision, i.GoVersion)
}

// Collector exports exercisedb_build_info{version,revision,goversion} 1, so a
// dashboard can tell which build each replica runs.
func (i Info) Collector() prometheus.Collector {
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "exercisedb_build_info",
		Help:        "The build of this binary: version, VCS revision and Go version; always 1.",
		ConstLabels: prometheus.Labels{"version": i.Version, "revision": i.Revision, "goversion": i.GoVersion},
	})
	g.Set(1)
	return g
}
