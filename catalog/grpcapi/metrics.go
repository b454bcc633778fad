package grpcapi

import "github.com/prometheus/client_golang/prometheus"

var (
	recordsDesc = prometheus.NewDesc("exercisedb_catalog_records",
		"Number of exercises in the catalogue being served.", nil, nil)
	versionDesc = prometheus.NewDesc("exercisedb_catalog_catalogue_info",
		"Always 1, labelled with the version of the catalogue being served.", []string{"version"}, nil)
)

// catalogueCollector reports the catalogue currently served.
type catalogueCollector struct{ svc *Service }

func newCatalogueCollector(svc *Service) prometheus.Collector { return catalogueCollector{svc} }

func (c catalogueCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- recordsDesc
	ch <- versionDesc
}

func (c catalogueCollector) Collect(ch chan<- prometheus.Metric) {
	cat := c.svc.Catalogue()
	if cat == nil {
		return
	}
	ch <- prometheus.MustNewConstMetric(recordsDesc, prometheus.GaugeValue, float64(cat.Len()))
	ch <- prometheus.MustNewConstMetric(versionDesc, prometheus.GaugeValue, 1, cat.Version())
}
