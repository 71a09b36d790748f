// Package store persists the exchange in one bbolt file or one PostgreSQL database (the same code
// over either: backend.go). Every bucket and meta key is declared in this
// file with the schema version; migrations are ordered and run at open.
//
// Functions on *Tx run inside a transaction and never open another. Values are JSON carrying a
// version field; keys are prefixed time-sortable ids or big-endian integers. No network calls or
// channel sends happen inside a transaction: callers publish after commit.
package store

// SchemaVersion is the version this build writes. A database with a higher version is refused.
const SchemaVersion = 17

// Buckets.
var (
	bMeta          = []byte("meta")              // meta keys below
	bMembers       = []byte("members")           // member id -> axp.Member
	bIdempotency   = []byte("idempotency")       // sha256(scope|key) -> idemRecord
	bAudit         = []byte("audit")             // audit id (time-sortable) -> axp.AuditRecord
	bLog           = []byte("log")               // 8-byte unix nanos + 4-byte seq -> axp.LogEntry
	bTraceIndex    = []byte("trace_index")       // trace id, kind, key -> nil (records.go)
	bMetrics       = []byte("metrics")           // 8-byte hour + route -> metricAgg
	bFeedback      = []byte("feedback")          // id -> feedback record
	bPaymentPrefs  = []byte("payment_prefs")     // id -> payment preference record
	bInterest      = []byte("interest")          // id -> interest record
	bSurvey        = []byte("survey")            // id -> survey record
	bAnnouncements = []byte("announcements")     // id -> announcement record
	bReads         = []byte("announce_reads")    // member id \x00 announcement id -> RFC 3339 time
	bOperatorMsgs  = []byte("operator_msgs")     // id -> axp.OperatorMessageView
	bReviews       = []byte("reviews")           // review id -> review record (reviewee indexed below)
	bReviewsBy     = []byte("reviews_by_member") // reviewee id \x00 review id -> nil
)

// Buckets of the marketplace (schema version 2).
var (
	bTasks        = []byte("tasks")          // task id -> axp.TaskRecord
	bTaskStatus   = []byte("task_status")    // status \x00 task id -> nil
	bBuyerTasks   = []byte("buyer_tasks")    // buyer member id \x00 task id -> nil
	bSellerJobs   = []byte("seller_jobs")    // seller id \x00 task id -> nil
	bQuotes       = []byte("quotes")         // task id \x00 seller id -> axp.QuoteRecord
	bOfferIndex   = []byte("offer_index")    // offer id -> task id \x00 seller id
	bEvents       = []byte("events")         // task id \x00 8-byte seq -> axp.Event
	bBlobs        = []byte("blobs")          // sha256 hex -> content
	bApprovals    = []byte("approvals")      // approval id -> axp.Approval
	bTaskApproval = []byte("task_approvals") // task id \x00 approval id -> nil
	bOpenApproval = []byte("open_approvals") // approval id -> nil, while pending or held
	bLedger       = []byte("ledger")         // entry id -> axp.LedgerEntry
	bTxHashes     = []byte("tx_hashes")      // tx hash (or "escrow-payment:" + payment hash) -> task id (one funds one task; tasks.go)
	bSellerStats  = []byte("seller_stats")   // seller id -> axp.SellerStats
)

// Buckets of schema version 3.
var (
	bSandboxes = []byte("sandboxes") // sandbox id -> SandboxRecord (practice jobs; never in the market)
)

// Buckets of schema version 4: trust and safety (messages, settlements, mediations, reviews by task,
// listing rejections, AI calls, contact-detail removals).
var (
	bMessages        = []byte("messages")            // task id \x00 message id -> axp.Message
	bSettlements     = []byte("settlements")         // settlement id -> axp.Settlement
	bTaskSettlements = []byte("task_settlements")    // task id \x00 settlement id -> nil
	bMediations      = []byte("mediations")          // mediation id -> axp.Mediation
	bTaskMediations  = []byte("task_mediations")     // task id \x00 mediation id -> nil
	bOpenMediations  = []byte("awaiting_mediations") // mediation id -> nil, while statements are collected
	bTaskReviews     = []byte("task_reviews")        // task id \x00 reviewer side -> review id
	bListings        = []byte("listing_rejections")  // rejection id -> axp.ListingRejection
	bListingHashes   = []byte("listing_hashes")      // brief hash -> rejection id
	bAICalls         = []byte("ai_calls")            // AI call id (time-sortable) -> axp.AICall
	bRemovals        = []byte("contact_removals")    // removal id (time-sortable) -> ContactRemoval
)

// Buckets of schema version 5.
var (
	bDeliveries = []byte("announce_deliveries") // announcement id \x00 member id -> axp.AnnouncementDelivery
)

// Buckets of schema version 6: money on chain.
var (
	bInbound      = []byte("inbound_transfers") // tx hash \x00 8-byte log index -> axp.InboundTransfer
	bSentApproval = []byte("sent_approvals")    // approval id -> nil, while its transfers await confirmation
)

// Buckets of schema version 7: pay-per-call tools.
var (
	bPaidCalls  = []byte("paid_calls")      // lower-case payer \x00 lower-case nonce -> axp.PaidCall
	bPaidOpen   = []byte("paid_calls_open") // paid call key -> nil, while claimed or settling
	bPaidTxs    = []byte("paid_call_txs")   // lower-case settlement tx hash -> paid call key
	bTrials     = []byte("paid_trials")     // UTC day (2006-01-02) \x00 caller -> 4-byte count
	bConnectors = []byte("connectors")      // connector id -> axp.Connector
	bConnNames  = []byte("connector_names") // tool name -> connector id, once accepted
)

// Buckets of schema version 8: the members' board.
var (
	bBoardPosts   = []byte("board_posts")   // post id (time-sortable) -> axp.BoardPost, threads and replies
	bBoardThreads = []byte("board_threads") // thread id -> nil, while the thread is visible
	bBoardTags    = []byte("board_tags")    // tag \x00 thread id -> nil, while the thread is visible
	bBoardReplies = []byte("board_replies") // thread id \x00 reply id -> nil, every reply
	bBoardPending = []byte("board_pending") // post id -> nil, while the post waits for the operator
)

// Buckets of schema version 9: the talk assistant.
var (
	bConversations = []byte("conversations") // conversation id -> axp.Conversation
)

// Buckets of schema version 10: recorded data and its hash chain (docs/decisions.md, "Recorded
// data and proofs").
var (
	bChain       = []byte("chain")         // 8-byte seq -> chainRecord (a batch: its entry and its item ids)
	bPrices      = []byte("prices")        // coin \x00 8-byte recorded unix ms -> priceRecord
	bNews        = []byte("news")          // news id (time-sortable by first seen) -> newsRecord
	bNewsKeys    = []byte("news_keys")     // sha256(feed \x00 guid or link) -> news id (dedup)
	bNewsEntity  = []byte("news_entities") // entity (lower case) \x00 8-byte first-seen unix ms \x00 news id -> nil
	bSignals     = []byte("signals")       // signal id (time-sortable by publication) -> signalRecord
	bSignalsOpen = []byte("signals_due")   // 8-byte due unix ms \x00 signal id -> nil, until scored
)

// Buckets of schema version 11: indexes that keep request paths and the sweeper flat as the store
// grows.
var (
	bTaskDue      = []byte("task_due")      // 8-byte unix-nano deadline + task id -> nil: when the sweeper next looks at it
	bTaskDueAt    = []byte("task_due_at")   // task id -> the 8-byte deadline it is indexed under in task_due
	bSkillSellers = []byte("skill_sellers") // task type \x00 member id -> nil, for every skill a member lists
	bSellerActive = []byte("seller_active") // seller id \x00 task id -> nil, while the task is the seller's active job
)

// Buckets of schema version 12: indexes of open tasks by type, tasks awaiting payment by amount,
// and members by state and by when verified members were last seen (indexes12.go).
var (
	bOpenByType  = []byte("open_by_type") // task type \x00 task id -> nil, while the task is open
	bPayable     = []byte("payable")      // 8-byte tag + 8-byte payable amount + task id -> nil, while awaiting payment
	bPayableAt   = []byte("payable_at")   // task id -> its key in payable
	bMemberState = []byte("member_state") // state \x00 member id -> nil
	bMemberSeen  = []byte("members_seen") // 8-byte unix-nano last seen + member id -> nil, while verified
)

// Buckets of schema version 15: tasks by when their job was done (done.go).
var (
	bTasksDone = []byte("tasks_done") // 8-byte unix-nano time the job was done + task id -> nil
)

// Buckets of schema version 16: transaction hashes by the records that carry them (txuses.go).
var (
	bTxUses = []byte("tx_uses") // lower-case tx hash \x00 approval or ledger entry id -> nil
)

// Buckets of schema version 17: members by the keys their names are compared by (names.go).
var (
	bMemberNames = []byte("member_names") // name key \x00 member id -> nil
)

// Meta keys.
var (
	kOfferRev       = []byte("offer_rev")    // 8-byte revision of what verified sellers offer
	kChainCursor    = []byte("chain_cursor") // 8-byte last block the payment watcher processed
	kSchemaVersion  = []byte("schema_version")
	kAdminTokenHash = []byte("admin_token_hash")
	kCreatedAt      = []byte("created_at")
	kPaymentSeq     = []byte("payment_seq") // counter of payable-amount tags
	// The block hash of the watcher's cursor, and the transfers it credited lately with the hash
	// of their block (JSON), both re-checked on every pass to notice reorgs.
	kChainCursorHash = []byte("chain_cursor_hash")
	kChainRecent     = []byte("chain_recent")
	// What money the ledger holds: "test:<genesis hash>" (test mode's own chain) or "real".
	kMoneyMode = []byte("money_mode")
	// The test mode faucet's gifts of the last hour (JSON), each written before it is sent.
	kFaucetGifts = []byte("faucet_gifts")
	// The revision of the name keys member_names was filled with (names.go).
	kMemberNamesRev = []byte("member_names_rev")
)

// migration moves a database from version-1 to version.
type migration struct {
	version int
	name    string
	apply   func(tx *Tx) error
}

// migrations are applied in order; each runs in the transaction that records its version.
var migrations = []migration{
	{1, "initial buckets", func(tx *Tx) error {
		return tx.createBucket(bMeta, bMembers, bIdempotency, bAudit, bLog, bTraceIndex, bMetrics,
			bFeedback, bPaymentPrefs, bInterest, bSurvey, bAnnouncements, bReads, bOperatorMsgs,
			bReviews, bReviewsBy)
	}},
	{2, "marketplace: tasks, quotes, timeline, blobs, approvals, ledger", func(tx *Tx) error {
		return tx.createBucket(bTasks, bTaskStatus, bBuyerTasks, bSellerJobs, bQuotes, bOfferIndex, bEvents,
			bBlobs, bApprovals, bTaskApproval, bOpenApproval, bLedger, bTxHashes, bSellerStats)
	}},
	{3, "sandbox jobs", func(tx *Tx) error { return tx.createBucket(bSandboxes) }},
	{4, "trust and safety: messages, settlements, mediations, listing rejections, AI calls, removals", func(tx *Tx) error {
		return tx.createBucket(bMessages, bSettlements, bTaskSettlements, bMediations, bTaskMediations, bOpenMediations,
			bTaskReviews, bListings, bListingHashes, bAICalls, bRemovals)
	}},
	{5, "announcement deliveries per member", func(tx *Tx) error { return tx.createBucket(bDeliveries) }},
	{6, "money on chain: inbound transfers, approvals being sent", func(tx *Tx) error {
		return tx.createBucket(bInbound, bSentApproval)
	}},
	{7, "pay-per-call tools: paid calls, trials, connectors", func(tx *Tx) error {
		return tx.createBucket(bPaidCalls, bPaidOpen, bPaidTxs, bTrials, bConnectors, bConnNames)
	}},
	{8, "members' board: posts, visible threads, tags, replies, the operator's queue", func(tx *Tx) error {
		return tx.createBucket(bBoardPosts, bBoardThreads, bBoardTags, bBoardReplies, bBoardPending)
	}},
	{9, "talk conversations", func(tx *Tx) error { return tx.createBucket(bConversations) }},
	{10, "recorded data: the hash chain, prices, news, strategy signals", func(tx *Tx) error {
		return tx.createBucket(bChain, bPrices, bNews, bNewsKeys, bNewsEntity, bSignals, bSignalsOpen)
	}},
	{11, "indexes: tasks by sweep deadline, sellers by task type, sellers' active jobs", migrateIndexes},
	{12, "indexes: open tasks by type, tasks awaiting payment by amount, members by state and last seen", migrateIndexes12},
	// Nothing to rewrite: readers take the earlier forms; the version keeps older builds, which
	// cannot read the new ones, from opening the database.
	{13, "values compressed with zstd, compact idempotency records", func(*Tx) error { return nil }},
	// The blocks' buckets; the daemon's hourly pass packs what is past its age.
	{14, "packed history: audit, log, ledger, approvals, tasks, timelines, quotes and their indexes in compressed blocks", func(tx *Tx) error {
		for _, name := range packedBlockNames {
			if err := tx.createBucket([]byte(name)); err != nil {
				return err
			}
		}
		return nil
	}},
	{15, "index: tasks by when their job was done", migrateDone},
	{16, "index: transaction hashes by the approval items and ledger entries that carry them", migrateTxUses},
	{17, "index: members by the keys their names are compared by (filled at the next registration)", func(tx *Tx) error {
		return tx.createBucket(bMemberNames)
	}},
}
