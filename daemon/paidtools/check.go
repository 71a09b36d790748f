package paidtools

import (
	"net/url"

	"github.com/axp-exchange/axp"
)

// CheckURLs refuses the input Contents would refuse, naming the field, before anything is fetched
// (and before a call is charged).
func CheckURLs(in *axp.WebContentsInput) ([]*url.URL, error) { return checkURLs(in) }
