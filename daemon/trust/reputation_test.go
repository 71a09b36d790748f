package trust_test

import (
	"fmt"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/kernel/kerneltest"
	"github.com/axp-exchange/axp/daemon/trust"
	"github.com/axp-exchange/axp/store"
)

func TestReputationCountsWhatCounts(t *testing.T) {
	f := kerneltest.New(t)
	me, _ := f.AddMember(t, axp.Registration{Roles: []string{"buyer", "seller"}, Name: "Tide Reader"})
	n := 0
	review := func(reviewer, role string, rating int, removed, sandbox bool) *store.ReviewRecord {
		n++
		return &store.ReviewRecord{ReviewView: axp.ReviewView{ReviewID: fmt.Sprintf("rev_%d", n), TaskID: fmt.Sprintf("tsk_r%d", n),
			Role: role, Rating: rating, CreatedAt: f.K.Now()}, ReviewerID: reviewer, RevieweeID: me.MemberID, Removed: removed, Sandbox: sandbox}
	}
	f.Update(t, func(tx *store.Tx) error {
		for _, r := range []*store.ReviewRecord{
			review("mem_b1", "buyer", 5, false, false), review("mem_b1", "buyer", 4, false, false),
			review("mem_b2", "buyer", 2, false, false),
			review("mem_b3", "buyer", 1, true, false),   // removed
			review("mem_b4", "buyer", 1, false, true),   // sandbox
			review("mem_s1", "seller", 3, false, false), // of this member as buyer
		} {
			if err := tx.PutReview(r); err != nil {
				return err
			}
		}
		if err := tx.PutSellerStats(&axp.SellerStats{SellerID: me.MemberID, Completed: 7, Disputed: 1, Deliveries: 9}); err != nil {
			return err
		}
		for i, st := range []struct {
			status   string
			disputed bool
			test     bool
		}{{axp.TaskReleased, false, false}, {axp.TaskAccepted, false, false}, {axp.TaskRefunded, true, false},
			{axp.TaskReleased, false, true}, {axp.TaskOpen, false, false}} {
			task := &axp.TaskRecord{ID: fmt.Sprintf("tsk_b%d", i), Type: "text-file", Status: st.status, Disputed: st.disputed,
				Test: st.test, BuyerMemberID: me.MemberID, CreatedAt: f.K.Now()}
			if err := tx.PutTask(task, ""); err != nil {
				return err
			}
		}
		return nil
	})
	var rep axp.Reputation
	f.View(t, func(tx *store.Tx) error {
		m, err := tx.Member(me.MemberID)
		if err != nil {
			return err
		}
		rep, err = trust.Reputation(tx, m)
		return err
	})
	if rep.Reviews != 3 || rep.DistinctReviewers != 2 || rep.Rating == nil || *rep.Rating != 3.66 ||
		rep.Ratings != (axp.RatingCounts{Two: 1, Four: 1, Five: 1}) {
		t.Errorf("as seller: %d reviews by %d, rating %v, %+v", rep.Reviews, rep.DistinctReviewers, rep.Rating, rep.Ratings)
	}
	if len(rep.RecentReviews) != 4 {
		t.Errorf("%d recent reviews, want the 4 that count", len(rep.RecentReviews))
	}
	if rep.CompletedJobs != 7 || rep.DisputedJobs != 1 || rep.Deliveries != 9 {
		t.Errorf("job figures %d %d %d", rep.CompletedJobs, rep.DisputedJobs, rep.Deliveries)
	}
	if rep.AsBuyer.Reviews != 1 || rep.AsBuyer.Rating == nil || *rep.AsBuyer.Rating != 3 ||
		rep.AsBuyer.CompletedJobs != 2 || rep.AsBuyer.DisputedJobs != 1 {
		t.Errorf("as buyer %+v", rep.AsBuyer)
	}
}
