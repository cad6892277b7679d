package ovhcloud

import "github.com/zoneprice/zoneprice/ingest"

// format is the document as the package comment's Fields list it: a
// name ending in "?" may be absent (read where present, ignored, or an
// error envelope's). The runner reports a document that drifted from it
// (ingest.Drift).
func format() *ingest.Shape {
	amount := ingest.Object(map[string]*ingest.Shape{"value": ingest.Scalar(), "formattedValue?": nil, "tax?": nil})
	promotion := ingest.Object(map[string]*ingest.Shape{
		"startDate": ingest.Scalar(), "endDate": ingest.Scalar(), "total": amount, "discount": amount,
		"name?": nil, "description?": nil, "context?": nil, "duration?": nil, "minimumDuration?": nil, "type?": nil,
		"value?": nil, "formattedValue?": nil, "globalQuantity?": nil, "isGlobalQuantityLimited?": nil, "quantity?": nil, "tags?": nil,
	})
	pricing := ingest.Object(map[string]*ingest.Shape{
		"capacities": ingest.Array(ingest.Scalar()), "mode": ingest.Scalar(), "interval": ingest.Scalar(),
		"intervalUnit": ingest.Scalar(), "price": ingest.Scalar(), "promotions": ingest.Array(promotion),
		"phase?": nil, "tax?": nil, "commitment?": nil, "description?": nil, "engagementConfiguration?": nil,
		"formattedPrice?": nil, "mustBeCompleted?": nil, "quantity?": nil, "repeat?": nil, "strategy?": nil, "type?": nil,
	})
	plan := ingest.Object(map[string]*ingest.Shape{
		"planCode": ingest.Scalar(), "invoiceName": ingest.Scalar(), "pricings": ingest.Array(pricing),
		"product?": nil, "addonFamilies?": nil, "configurations?": nil, "consumptionConfiguration?": nil,
		"family?": nil, "pricingType?": nil, "blobs?": nil,
	})
	return ingest.Object(map[string]*ingest.Shape{
		"locale":     ingest.Object(map[string]*ingest.Shape{"currencyCode": ingest.Scalar(), "subsidiary?": nil, "taxRate?": nil}),
		"plans":      ingest.Array(plan),
		"catalogId?": nil, "products?": nil, "addons?": nil, "planFamilies?": nil,
		"class?": ingest.Scalar(), "message?": ingest.Scalar(),
	})
}
