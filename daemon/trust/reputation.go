package trust

import (
	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
)

// Reputation computes the reputation view from stored reviews (sandbox and removed reviews never
// count). Job figures come from the marketplace's task history.
func Reputation(tx *store.Tx, m *axp.Member) (axp.Reputation, error) {
	rep := axp.Reputation{MemberID: m.ID, RecentReviews: []axp.ReviewView{}}
	reviews, err := tx.ReviewsOf(m.ID)
	if err != nil {
		return rep, err
	}
	reviewers := map[string]bool{}
	sum := 0
	var buyerSum, buyerN int
	for _, r := range reviews {
		if r.Removed || r.Sandbox {
			continue
		}
		// Reviews are public on the reviewee's profile (spec 2.7), whichever side wrote them;
		// reviewer_role tells them apart.
		if len(rep.RecentReviews) < 10 {
			rep.RecentReviews = append(rep.RecentReviews, r.ReviewView)
		}
		if r.Role == protocol.RoleSeller { // a seller reviewed this member as buyer
			buyerSum += r.Rating
			buyerN++
			continue
		}
		rep.Reviews++
		sum += r.Rating
		reviewers[r.ReviewerID] = true
		switch r.Rating {
		case 1:
			rep.Ratings.One++
		case 2:
			rep.Ratings.Two++
		case 3:
			rep.Ratings.Three++
		case 4:
			rep.Ratings.Four++
		case 5:
			rep.Ratings.Five++
		}
	}
	rep.DistinctReviewers = len(reviewers)
	if rep.Reviews > 0 {
		avg := float64(sum*100/rep.Reviews) / 100
		rep.Rating = &avg
	}
	rep.AsBuyer.Reviews = buyerN
	if buyerN > 0 {
		avg := float64(buyerSum*100/buyerN) / 100
		rep.AsBuyer.Rating = &avg
	}
	if m.HasRole(protocol.RoleSeller) {
		st, err := tx.SellerStats(m.ID)
		if err != nil {
			return rep, err
		}
		rep.CompletedJobs, rep.DisputedJobs, rep.Deliveries = st.Completed, st.Disputed, st.Deliveries
		rep.FirstPassJobs, rep.OnTimeJobs = st.FirstPass, st.OnTime
		rep.QuoteCount, rep.MedianQuoteMillis = len(st.QuoteLatencyMS), st.MedianQuoteMS()
	}
	if m.HasRole(protocol.RoleBuyer) {
		for _, id := range tx.BuyerTaskIDs(m.ID) {
			t, err := tx.Task(id)
			if err != nil || t == nil || t.Test {
				continue
			}
			switch {
			case t.Disputed && (t.Status == axp.TaskReleased || t.Status == axp.TaskRefunded || t.Status == axp.TaskDisputed):
				rep.AsBuyer.DisputedJobs++
			case t.Status == axp.TaskReleased || t.Status == axp.TaskAccepted:
				rep.AsBuyer.CompletedJobs++
			}
		}
	}
	return rep, nil
}
