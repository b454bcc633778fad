package grpcapi

import "github.com/prometheus/client_golang/prometheus"

var (
	recordsDesc = prometheus.NewDesc("exercisedb_catalog_records",
		"Number of exercises in the catalogue being served.", nil, nil)
	versionDesc = prometheus.NewDesc("exercisedb_catalog_catalogue_info",
		"Always 1, labelled with the version of the catalogue being served.", []string{"version"}, nil)
	mediaEntriesDesc = prometheus.NewDesc("exercisedb_catalog_media_cache_entries",
		"Media files kept once drawn.", nil, nil)
	mediaBytesDesc = prometheus.NewDesc("exercisedb_catalog_media_cache_bytes",
		"Bytes of the media files kept once drawn, bounded by -media-cache-bytes.", nil, nil)
	mediaMaxBytesDesc = prometheus.NewDesc("exercisedb_catalog_media_cache_max_bytes",
		"The bound of exercisedb_catalog_media_cache_bytes, -media-cache-bytes.", nil, nil)
	searchEntriesDesc = prometheus.NewDesc("exercisedb_catalog_search_cache_entries",
		"Filter results and ranked lists (searches, relations) kept.", nil, nil)
	searchBytesDesc = prometheus.NewDesc("exercisedb_catalog_search_cache_bytes",
		"Estimated bytes of the filter results and ranked lists kept, bounded by -search-cache-bytes.", nil, nil)
	searchMaxBytesDesc = prometheus.NewDesc("exercisedb_catalog_search_cache_max_bytes",
		"The bound of exercisedb_catalog_search_cache_bytes, -search-cache-bytes.", nil, nil)
)

// catalogueCollector reports the catalogue currently served.
type catalogueCollector struct{ svc *Service }

func newCatalogueCollector(svc *Service) prometheus.Collector { return catalogueCollector{svc} }

func (c catalogueCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- recordsDesc
	ch <- versionDesc
	ch <- mediaEntriesDesc
	ch <- mediaBytesDesc
	ch <- mediaMaxBytesDesc
	ch <- searchEntriesDesc
	ch <- searchBytesDesc
	ch <- searchMaxBytesDesc
}

func (c catalogueCollector) Collect(ch chan<- prometheus.Metric) {
	cat := c.svc.Catalogue()
	if cat == nil {
		return
	}
	ch <- prometheus.MustNewConstMetric(recordsDesc, prometheus.GaugeValue, float64(cat.Len()))
	ch <- prometheus.MustNewConstMetric(versionDesc, prometheus.GaugeValue, 1, cat.Version())
	entries, bytes, maxBytes := c.svc.renderer().CacheStats()
	ch <- prometheus.MustNewConstMetric(mediaEntriesDesc, prometheus.GaugeValue, float64(entries))
	ch <- prometheus.MustNewConstMetric(mediaBytesDesc, prometheus.GaugeValue, float64(bytes))
	ch <- prometheus.MustNewConstMetric(mediaMaxBytesDesc, prometheus.GaugeValue, float64(maxBytes))
	entries, bytes, maxBytes = cat.CacheStats()
	ch <- prometheus.MustNewConstMetric(searchEntriesDesc, prometheus.GaugeValue, float64(entries))
	ch <- prometheus.MustNewConstMetric(searchBytesDesc, prometheus.GaugeValue, float64(bytes))
	ch <- prometheus.MustNewConstMetric(searchMaxBytesDesc, prometheus.GaugeValue, float64(maxBytes))
}
