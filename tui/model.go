package tui

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"

	"github.com/axp-exchange/axp"
)

// Views of the TUI.
const (
	ViewBuyer    = "buyer"
	ViewOperator = "operator"
)

// Queue filters of the operator view: its first tabs. The mediations, the rejected listings and
// the board's held posts follow them.
var filters = []struct {
	name string
	keep func(axp.Approval) bool
}{
	{"Queue", func(axp.Approval) bool { return true }},
	{"Payments to confirm", func(a axp.Approval) bool { return a.Kind == axp.ApprovePayment }},
	{"Release due", func(a axp.Approval) bool { return a.Kind == axp.ApproveReleaseDue }},
}

// Operator tabs after the queue filters.
const (
	tabMediations = 3
	tabListings   = 4
	tabBoard      = 5
	tabTasks      = 6
	numTabs       = 7
)

// Options configure the TUI.
type Options struct {
	Source Source
	// View is the view to start in (ViewBuyer or ViewOperator); empty picks the buyer view when
	// buyer credentials exist, else the operator view.
	View string
	// Refresh is the live refresh interval (default 3 s; negative turns it off).
	Refresh time.Duration
	// NoColor renders without colour (NO_COLOR).
	NoColor bool
	// Now is the clock (default time.Now).
	Now func() time.Time
	// CallTimeout bounds each call to the exchange (default 20 s).
	CallTimeout time.Duration
	// TestMode says the exchange runs its own test chain: the header says money is not real.
	TestMode bool
}

// Model is the TUI's state. Update is pure apart from the commands it returns, which call the
// Source.
type Model struct {
	src   Source
	opts  Options
	theme theme

	width, height int
	view          string

	// buyer view
	tasks       []axp.Task
	tasksLoaded bool
	taskCur     int
	open        *taskPane

	// operator view
	queue       []axp.Approval
	queueLoaded bool
	rail        string     // how approved payouts move: "evm" (the hot wallet sends them) or "manual"
	float       *axp.Float // the hot wallet against the open queue (evm rail)
	filter      int        // the operator's tab: a queue filter, tabMediations, tabListings or tabBoard
	queueCur    int
	marked      map[string]bool // queue items marked with space for a bulk approval, by id

	meds           []axp.Mediation // appealed first, then newest first
	medsLoaded     bool
	medCur         int
	listings       []axp.ListingRejection
	listingsLoaded bool
	lstCur         int
	board          []axp.BoardPost // posts waiting for the operator, oldest first
	boardLoaded    bool
	boardCur       int
	all            []axp.AdminTaskRow // every task, newest first
	allLoaded      bool
	allCur         int
	auditOpen      bool              // the audit trail is shown over the tabs (u, esc closes it)
	auditTask      string            // the task whose audit is shown ("" the whole trail)
	desc           *describePane     // a task described over the tabs (enter, esc closes it)
	audit          []axp.AuditRecord // the newest audit records, newest first
	auditLoaded    bool
	auditCur       int

	// query is each list's filter ("" none); typing says the filter line of the shown list is
	// open (/ opens it).
	query  [numLists]string
	typing bool

	dialog *dialog
	// report is the outcome of the last approval, line by line (the transfers sent, each item of
	// a bulk approval), shown under the screen until esc or enter closes it.
	report   []string
	flash    string
	flashErr bool
	help     bool
	quitting bool
}

// taskPane is an open task.
type taskPane struct {
	id         string
	task       *axp.Task
	sort       int // index in axp.Rankings
	cur        int // selected offer
	preview    *Deliverable
	previewErr string
	// pane is paneOffers (the offers, or the delivery) or paneMessages.
	pane       string
	messages   []axp.Message
	msgsLoaded bool
	dispute    *DisputeState // read while the task is disputed
}

// Panes of an open task.
const (
	paneOffers   = ""
	paneMessages = "messages"
)

// clone copies the pane, so that an update never changes the model it started from.
func (p *taskPane) clone() *taskPane {
	c := *p
	return &c
}

// New builds the TUI's model.
func New(o Options) Model {
	if o.Refresh == 0 {
		o.Refresh = 3 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = 20 * time.Second
	}
	m := Model{src: o.Source, opts: o, theme: newTheme(o.NoColor), width: 80, height: 24, view: o.View}
	if m.view == "" {
		m.view = ViewBuyer
		if !o.Source.CanBuy() && o.Source.CanOperate() {
			m.view = ViewOperator
		}
	}
	return m
}

// Messages.
type (
	tasksMsg struct {
		tasks    []axp.Task
		warnings []string
		err      error
	}
	taskMsg struct {
		id   string
		task *axp.Task
		err  error
	}
	queueMsg struct {
		list *axp.ApprovalList
		err  error
	}
	medsMsg struct {
		list []axp.Mediation
		err  error
	}
	listingsMsg struct {
		list []axp.ListingRejection
		err  error
	}
	boardMsg struct {
		list []axp.BoardPost
		err  error
	}
	allTasksMsg struct {
		list []axp.AdminTaskRow
		err  error
	}
	auditMsg struct {
		task string
		list []axp.AuditRecord
		err  error
	}
	deliverableMsg struct {
		id  string
		d   *Deliverable
		err error
	}
	// doneMsg ends an action: text is shown (as an error when bad), task (when set) replaces the
	// open task, report (when set) is shown under the screen.
	doneMsg struct {
		text   string
		bad    bool
		err    error
		task   *axp.Task
		report []string
		retry  *dialog // asked again when err is set (a refused transaction hash)
	}
	messagesMsg struct {
		id   string
		list []axp.Message
		err  error
	}
	disputeMsg struct {
		id  string
		st  *DisputeState
		err error
	}
	// payPreviewMsg is what paying a task from the wallet would send.
	payPreviewMsg struct {
		id    string
		lines []string
		err   error
	}
	tickMsg struct{}
)

// Init loads the first view and starts the live refresh.
func (m Model) Init() tea.Cmd {
	return tea.Batch(m.load(), m.tick())
}

func (m Model) tick() tea.Cmd {
	if m.opts.Refresh < 0 {
		return nil
	}
	return tea.Tick(m.opts.Refresh, func(time.Time) tea.Msg { return tickMsg{} })
}

func (m Model) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), m.opts.CallTimeout)
}

// fetch runs read off the update loop, within the call timeout, and delivers its message.
func (m Model) fetch(read func(ctx context.Context) tea.Msg) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := m.ctx()
		defer cancel()
		return read(ctx)
	}
}

// load reloads what the current view shows.
func (m Model) load() tea.Cmd {
	switch {
	case m.view == ViewOperator:
		if !m.src.CanOperate() {
			return nil
		}
		if m.auditOpen {
			return m.loadAudit()
		}
		if m.desc != nil {
			return m.loadDetail(m.desc.id)
		}
		return tea.Batch(m.loadQueue(), m.loadMediations(), m.loadListings(), m.loadBoard(), m.loadAllTasks())
	case m.open != nil:
		return m.loadTask(m.open.id, axp.Rankings[m.open.sort])
	}
	return m.loadTasks()
}

func (m Model) loadTasks() tea.Cmd {
	src := m.src
	return m.fetch(func(ctx context.Context) tea.Msg {
		t, w, err := src.Tasks(ctx)
		return tasksMsg{tasks: t, warnings: w, err: err}
	})
}

func (m Model) loadTask(id, sort string) tea.Cmd {
	src := m.src
	return m.fetch(func(ctx context.Context) tea.Msg {
		t, err := src.Task(ctx, id, sort)
		return taskMsg{id: id, task: t, err: err}
	})
}

func (m Model) loadMessages(id string) tea.Cmd {
	src := m.src
	return m.fetch(func(ctx context.Context) tea.Msg {
		l, err := src.Messages(ctx, id)
		return messagesMsg{id: id, list: l, err: err}
	})
}

func (m Model) loadDispute(id string) tea.Cmd {
	src := m.src
	return m.fetch(func(ctx context.Context) tea.Msg {
		st, err := src.DisputeState(ctx, id)
		return disputeMsg{id: id, st: st, err: err}
	})
}

// loadExtras reads what the open task shows besides the task: its messages when that pane is
// shown, its settlements and mediation while it is disputed.
func (m Model) loadExtras() tea.Cmd {
	p := m.open
	if p == nil || p.task == nil {
		return nil
	}
	var cmds []tea.Cmd
	if p.pane == paneMessages {
		cmds = append(cmds, m.loadMessages(p.id))
	}
	if p.task.Status == axp.TaskDisputed {
		cmds = append(cmds, m.loadDispute(p.id))
	}
	return tea.Batch(cmds...)
}

func (m Model) loadQueue() tea.Cmd {
	src := m.src
	return m.fetch(func(ctx context.Context) tea.Msg {
		l, err := src.Approvals(ctx)
		return queueMsg{list: l, err: err}
	})
}

func (m Model) loadMediations() tea.Cmd {
	src := m.src
	return m.fetch(func(ctx context.Context) tea.Msg {
		l, err := src.Mediations(ctx)
		return medsMsg{list: l, err: err}
	})
}

func (m Model) loadListings() tea.Cmd {
	src := m.src
	return m.fetch(func(ctx context.Context) tea.Msg {
		l, err := src.Listings(ctx)
		return listingsMsg{list: l, err: err}
	})
}

func (m Model) loadAllTasks() tea.Cmd {
	src := m.src
	return m.fetch(func(ctx context.Context) tea.Msg {
		l, err := src.AllTasks(ctx)
		return allTasksMsg{list: l, err: err}
	})
}

func (m Model) loadAudit() tea.Cmd {
	src, task := m.src, m.auditTask
	return m.fetch(func(ctx context.Context) tea.Msg {
		if task != "" {
			l, err := src.TaskAudit(ctx, task)
			return auditMsg{task: task, list: l, err: err}
		}
		l, err := src.Audit(ctx)
		return auditMsg{list: l, err: err}
	})
}

func (m Model) loadBoard() tea.Cmd {
	src := m.src
	return m.fetch(func(ctx context.Context) tea.Msg {
		l, err := src.BoardPending(ctx)
		return boardMsg{list: l, err: err}
	})
}

// Update handles a message.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		return m, nil
	case tickMsg:
		return m, tea.Batch(m.load(), m.tick())
	case tasksMsg:
		if msg.err != nil {
			return m.fail(msg.err), nil
		}
		old := m.shownTasks()
		m.tasks, m.tasksLoaded = msg.tasks, true
		m.taskCur = reselect(old, m.taskCur, m.shownTasks(), func(x axp.Task) string { return x.ID })
		if len(msg.warnings) > 0 {
			m.flash, m.flashErr = fmt.Sprintf("%d saved task(s) could not be read: %s", len(msg.warnings), msg.warnings[0]), true
		}
		return m, nil
	case taskMsg:
		if m.open == nil || m.open.id != msg.id {
			return m, nil
		}
		if msg.err != nil {
			return m.fail(msg.err), nil
		}
		m.open = m.open.clone()
		m.setTask(msg.task)
		return m, m.loadExtras()
	case messagesMsg:
		if m.open == nil || m.open.id != msg.id {
			return m, nil
		}
		if msg.err != nil {
			return m.fail(msg.err), nil
		}
		m.open = m.open.clone()
		m.open.messages, m.open.msgsLoaded = msg.list, true
		return m, nil
	case disputeMsg:
		if m.open == nil || m.open.id != msg.id {
			return m, nil
		}
		if msg.err != nil {
			return m.fail(msg.err), nil
		}
		m.open = m.open.clone()
		m.open.dispute = msg.st
		return m, nil
	case queueMsg:
		if msg.err != nil {
			return m.fail(msg.err), nil
		}
		m.rail, m.float = msg.list.Rail, msg.list.Float
		m.setQueue(msg.list.Approvals)
		return m, nil
	case medsMsg:
		if msg.err != nil {
			return m.fail(msg.err), nil
		}
		m.setMediations(msg.list)
		return m, nil
	case listingsMsg:
		if msg.err != nil {
			return m.fail(msg.err), nil
		}
		m.setListings(msg.list)
		return m, nil
	case boardMsg:
		if msg.err != nil {
			return m.fail(msg.err), nil
		}
		m.setBoard(msg.list)
		return m, nil
	case allTasksMsg:
		if msg.err != nil {
			return m.fail(msg.err), nil
		}
		old := m.shownAllTasks()
		m.all, m.allLoaded = msg.list, true
		m.allCur = reselect(old, m.allCur, m.shownAllTasks(), func(x axp.AdminTaskRow) string { return x.ID })
		return m, nil
	case auditMsg:
		if msg.task != m.auditTask {
			return m, nil
		}
		if msg.err != nil {
			return m.fail(msg.err), nil
		}
		old := m.shownAudit()
		m.audit, m.auditLoaded = msg.list, true
		m.auditCur = reselect(old, m.auditCur, m.shownAudit(), func(x axp.AuditRecord) string { return x.ID })
		return m, nil
	case payPreviewMsg:
		if m.open == nil || m.open.id != msg.id {
			return m, nil
		}
		if msg.err != nil {
			return m.fail(msg.err), nil
		}
		m.flash = ""
		// The first line is the question, as `axp wallet pay` asks it.
		title, lines := "Pay task "+msg.id+" from your wallet?", msg.lines
		if len(lines) > 0 {
			title, lines = capitalize(lines[0]), lines[1:]
		}
		m.dialog = newDialog("pay", msg.id, title, step{prompt: "Press y to pay, n or esc to cancel."})
		m.dialog.detail = lines
		return m, nil
	case detailMsg:
		if m.desc == nil || m.desc.id != msg.id {
			return m, nil
		}
		if msg.err != nil {
			return m.fail(msg.err), nil
		}
		p := *m.desc
		p.d = msg.d
		m.desc = &p
		return m, nil
	case deliverableMsg:
		if m.open == nil || m.open.id != msg.id {
			return m, nil
		}
		m.open = m.open.clone()
		if msg.err != nil {
			m.open.previewErr = errText(msg.err)
			return m.fail(msg.err), nil
		}
		m.open.preview, m.open.previewErr = msg.d, ""
		m.flash, m.flashErr = fmt.Sprintf("Deliverable retrieved: %d bytes, SHA-256 verified", len(msg.d.Body)), false
		return m, nil
	case doneMsg:
		if msg.err != nil {
			m.dialog = msg.retry
			return m.fail(msg.err), nil
		}
		m.flash, m.flashErr = msg.text, msg.bad
		if msg.report != nil {
			m.report = msg.report
		}
		if msg.task != nil && m.open != nil && m.open.id == msg.task.ID {
			m.open = m.open.clone()
			m.setTask(msg.task)
		}
		return m, m.load()
	case tea.PasteMsg:
		if m.typing && m.dialog == nil {
			if l, ok := m.shownList(); ok {
				m.setQuery(l, filterText(m.query[l]+msg.Content))
			}
			return m, nil
		}
		if m.dialog != nil {
			m.dialog = m.dialog.clone()
			m.dialog.insert(msg.Content)
		}
		return m, nil
	case tea.KeyPressMsg:
		return m.key(msg)
	}
	return m, nil
}

func (m Model) fail(err error) Model {
	m.flash, m.flashErr = "error: "+errText(err), true
	return m
}

func (m *Model) setTask(t *axp.Task) {
	old := m.shownOffers()
	m.open.task = t
	m.open.cur = reselect(old, m.open.cur, m.shownOffers(), func(o axp.Offer) string { return o.OfferID })
	tasks := append([]axp.Task(nil), m.tasks...)
	for i := range tasks {
		if tasks[i].ID == t.ID {
			tasks[i] = *t
		}
	}
	m.tasks = tasks
}

// setQueue replaces the queue, keeping the cursor on the same item when it is still there and the
// marks of the items still open.
func (m *Model) setQueue(list []axp.Approval) {
	old := m.visible()
	m.queue, m.queueLoaded = list, true
	m.queueCur = reselect(old, m.queueCur, m.visible(), func(a axp.Approval) string { return a.ID })
	if len(m.marked) > 0 {
		kept := map[string]bool{}
		for _, a := range list {
			if m.marked[a.ID] {
				kept[a.ID] = true
			}
		}
		m.marked = kept
	}
}

// setMediations replaces the mediations, appealed ones first, keeping the cursor on the same one.
func (m *Model) setMediations(list []axp.Mediation) {
	sorted := make([]axp.Mediation, 0, len(list))
	for _, x := range list {
		if x.Status == axp.MediationAppealed {
			sorted = append(sorted, x)
		}
	}
	for _, x := range list {
		if x.Status != axp.MediationAppealed {
			sorted = append(sorted, x)
		}
	}
	old := m.shownMediations()
	m.meds, m.medsLoaded = sorted, true
	m.medCur = reselect(old, m.medCur, m.shownMediations(), func(x axp.Mediation) string { return x.ID })
}

// setListings replaces the rejected listings, keeping the cursor on the same one.
func (m *Model) setListings(list []axp.ListingRejection) {
	old := m.shownListings()
	m.listings, m.listingsLoaded = list, true
	m.lstCur = reselect(old, m.lstCur, m.shownListings(), func(x axp.ListingRejection) string { return x.ID })
}

// setBoard replaces the board's held posts, keeping the cursor on the same one.
func (m *Model) setBoard(list []axp.BoardPost) {
	old := m.shownBoard()
	m.board, m.boardLoaded = list, true
	m.boardCur = reselect(old, m.boardCur, m.shownBoard(), func(x axp.BoardPost) string { return x.ID })
}

// reselect is a list's cursor once the list old is replaced by list: on the item it was on, by id,
// else where it was, within the new list.
func reselect[T any](old []T, cur int, list []T, id func(T) string) int {
	prev := ""
	if cur < len(old) {
		prev = id(old[cur])
	}
	cur = clamp(cur, len(list))
	for i, x := range list {
		if id(x) == prev {
			cur = i
		}
	}
	return cur
}

// selectedMediation is the mediation under the cursor, or nil.
func (m Model) selectedMediation() *axp.Mediation {
	if v := m.shownMediations(); m.medCur < len(v) {
		return &v[m.medCur]
	}
	return nil
}

// selectedListing is the rejection under the cursor, or nil.
func (m Model) selectedListing() *axp.ListingRejection {
	if v := m.shownListings(); m.lstCur < len(v) {
		return &v[m.lstCur]
	}
	return nil
}

// selectedPost is the held board post under the cursor, or nil.
func (m Model) selectedPost() *axp.BoardPost {
	if v := m.shownBoard(); m.boardCur < len(v) {
		return &v[m.boardCur]
	}
	return nil
}

// tabQueue lists the queue items of the current queue tab (none on the other tabs).
func (m Model) tabQueue() []axp.Approval {
	if m.filter >= len(filters) {
		return nil
	}
	var out []axp.Approval
	for _, a := range m.queue {
		if filters[m.filter].keep(a) {
			out = append(out, a)
		}
	}
	return out
}

// visible lists the queue items the current tab shows, its filter (/) applied.
func (m Model) visible() []axp.Approval {
	now := m.opts.Now()
	return keep(m.tabQueue(), m.query[listTab+listID(m.filter)], func(a axp.Approval) string {
		return rowText(queueCells(now, a), a.ID, a.BuyerID, a.SellerID)
	})
}

// selected is the queue item under the cursor, or nil.
func (m Model) selected() *axp.Approval {
	v := m.visible()
	if m.queueCur < len(v) {
		return &v[m.queueCur]
	}
	return nil
}

func clamp(i, n int) int {
	if i >= n {
		i = n - 1
	}
	if i < 0 {
		i = 0
	}
	return i
}

func (m Model) key(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	if k.String() == "ctrl+c" {
		m.quitting = true
		return m, tea.Quit
	}
	if m.dialog != nil {
		return m.dialogKey(k)
	}
	if m.report != nil {
		m.report = nil
		if k.String() == "esc" || k.String() == "enter" {
			return m, nil
		}
	}
	if m.typing {
		return m.filterKey(k)
	}
	if l, ok := m.shownList(); ok {
		switch {
		case k.String() == "/":
			m.typing = true
			m.flash, m.flashErr = "", false
			return m, nil
		case k.String() == "esc" && m.query[l] != "":
			m.setQuery(l, "")
			return m, nil
		}
	}
	switch k.String() {
	case "q":
		m.quitting = true
		return m, tea.Quit
	case "?":
		m.help = !m.help
		return m, nil
	case "tab", "shift+tab":
		return m.switchView()
	case "ctrl+r", "f5":
		m.flash, m.flashErr = "Refreshing…", false
		return m, m.load()
	}
	if m.view == ViewOperator {
		return m.operatorKey(k)
	}
	if m.open != nil {
		return m.taskKey(k)
	}
	return m.listKey(k)
}

func (m Model) switchView() (tea.Model, tea.Cmd) {
	if m.view == ViewBuyer {
		if !m.src.CanOperate() {
			m.flash, m.flashErr = "The operator view needs the admin token: run `axp login` with it, or set AXP_ADMIN_TOKEN", true
			return m, nil
		}
		m.view = ViewOperator
	} else {
		m.view = ViewBuyer
	}
	m.flash, m.flashErr = "", false
	return m, m.load()
}

func (m Model) listKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	tasks := m.shownTasks()
	switch k.String() {
	case "up", "k":
		m.taskCur = clamp(m.taskCur-1, len(tasks))
	case "down", "j":
		m.taskCur = clamp(m.taskCur+1, len(tasks))
	case "home", "g":
		m.taskCur = 0
	case "end", "G":
		m.taskCur = clamp(len(tasks)-1, len(tasks))
	case "enter", "right", "l":
		if m.taskCur < len(tasks) {
			t := tasks[m.taskCur]
			m.open = &taskPane{id: t.ID, task: &t}
			m.flash = ""
			return m, m.loadTask(t.ID, axp.Rankings[0])
		}
	}
	return m, nil
}

func (m Model) taskKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	p := m.open.clone()
	m.open = p
	t := p.task
	offers := m.shownOffers()
	if k.String() == "w" {
		return m.writeMessage()
	}
	if p.pane == paneMessages {
		switch k.String() {
		case "m", "esc", "backspace", "left", "h":
			p.pane = paneOffers
			m.flash = ""
		}
		return m, nil
	}
	switch k.String() {
	case "m":
		p.pane = paneMessages
		m.flash = ""
		return m, m.loadMessages(p.id)
	case "esc", "backspace", "left", "h":
		m.open = nil
		m.flash = ""
		return m, m.loadTasks()
	case "up", "k":
		p.cur = clamp(p.cur-1, len(offers))
	case "down", "j":
		p.cur = clamp(p.cur+1, len(offers))
	case "s":
		p.sort = (p.sort + 1) % len(axp.Rankings)
		p.cur = 0
		m.flash, m.flashErr = "Offers ranked by "+axp.Rankings[p.sort], false
		return m, m.loadTask(p.id, axp.Rankings[p.sort])
	case "c", "enter":
		if t.Status != axp.TaskOpen {
			m.flash, m.flashErr = "The task is "+t.Status+": offers are chosen while it is open", true
			return m, nil
		}
		if len(t.Offers) == 0 {
			m.flash, m.flashErr = "No offers yet: they appear here as sellers quote", true
			return m, nil
		}
		if p.cur >= len(offers) {
			m.flash, m.flashErr = "No offer matches the filter: esc clears it", true
			return m, nil
		}
		o := offers[p.cur]
		m.dialog = newDialog("choose", t.ID,
			fmt.Sprintf("Choose offer %s from %s at %s, ETA %d min?", o.OfferID, o.Seller.Name, o.PriceUSD.Display(), o.ETAMinutes),
			confirmStep())
		m.dialog.values["offer"] = o.OfferID
	case "p", "v":
		if k.String() == "p" && t.Status == axp.TaskAwaitingPayment {
			return m.payTask(t)
		}
		if t.Deliverable == nil {
			m.flash, m.flashErr = "Nothing delivered yet", true
			return m, nil
		}
		m.flash, m.flashErr = "Downloading the deliverable…", false
		src, id := m.src, t.ID
		return m, m.fetch(func(ctx context.Context) tea.Msg {
			d, err := src.Deliverable(ctx, id)
			return deliverableMsg{id: id, d: d, err: err}
		})
	case "a":
		if t.Status != axp.TaskDelivered {
			m.flash, m.flashErr = "The task is "+t.Status+": a delivery is accepted once it is delivered", true
			return m, nil
		}
		title := "Accept the delivery of " + t.ID + "? The seller is paid after the operator approves."
		if p.preview == nil {
			title = "Accept the delivery of " + t.ID + " without previewing it (p)? The exchange wants it retrieved first."
		}
		m.dialog = newDialog("accept", t.ID, title, confirmStep())
		if p.preview != nil {
			m.dialog.values["sha256"] = p.preview.SHA256
		}
	case "d":
		if t.Status != axp.TaskDelivered {
			m.flash, m.flashErr = "The task is "+t.Status+": a delivery is disputed once it is delivered", true
			return m, nil
		}
		m.dialog = newDialog("dispute", t.ID, "Dispute the delivery of "+t.ID,
			step{field: "reason", prompt: "What is wrong with it?", required: true}, confirmStep())
	}
	return m, nil
}

// payTask checks that the wallet can pay task t and asks, showing what paying sends (as `axp
// wallet pay` does); on an exchange not in test mode it says how to pay.
func (m Model) payTask(t *axp.Task) (tea.Model, tea.Cmd) {
	if !m.src.CanPay() {
		m.flash, m.flashErr = "Pay it from your wallet with `axp wallet pay "+t.ID+"` (the TUI pays on an exchange in test mode), or report a payment: axp task pay "+t.ID+" --tx HASH", true
		return m, nil
	}
	m.flash, m.flashErr = "Checking the wallet and the chain…", false
	src, id := m.src, t.ID
	return m, m.fetch(func(ctx context.Context) tea.Msg {
		lines, err := src.PayPreview(ctx, id)
		return payPreviewMsg{id: id, lines: lines, err: err}
	})
}

// writeMessage opens the dialog of a message to the chosen seller, or, before an offer is chosen,
// to the seller of the selected offer.
func (m Model) writeMessage() (tea.Model, tea.Cmd) {
	p := m.open
	t := p.task
	offers := m.shownOffers()
	to, sellerID := "", ""
	switch {
	case t.Seller != nil:
		to = t.Seller.Name
	case p.cur < len(offers):
		to, sellerID = offers[p.cur].Seller.Name, offers[p.cur].Seller.ID
	default:
		m.flash, m.flashErr = "No seller to write to yet: messages go to a seller who made an offer", true
		return m, nil
	}
	m.dialog = newDialog("message", t.ID, "Write to "+to+" on "+t.ID+" (contact details are removed)",
		step{field: "body", prompt: "Message:", required: true}, confirmStep())
	m.dialog.values["seller"] = sellerID
	return m, nil
}

var txPattern = regexp.MustCompile(`^0x[0-9a-fA-F]{64}$`)

func (m Model) operatorKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	if !m.src.CanOperate() {
		return m, nil
	}
	if m.auditOpen {
		return m.auditKey(k)
	}
	if m.desc != nil {
		return m.describeKey(k)
	}
	switch k.String() {
	case "u":
		// On the tasks tab, the audit of the selected task; elsewhere the whole trail.
		if v := m.shownAllTasks(); m.filter == tabTasks && m.allCur < len(v) {
			return m.openAudit(v[m.allCur].ID)
		}
		return m.openAudit("")
	case "enter":
		if v := m.shownAllTasks(); m.filter == tabTasks && m.allCur < len(v) {
			return m.describe(v[m.allCur].ID)
		}
		if a := m.selected(); a != nil && m.filter < len(filters) {
			return m.describe(a.TaskID)
		}
	}
	// The cursor of the current tab and its length.
	l := listTab + listID(m.filter)
	ids, _ := m.rows(l)
	cur, n := m.cursor(l), len(ids)
	switch k.String() {
	case "up", "k":
		*cur = clamp(*cur-1, n)
		return m, nil
	case "down", "j":
		*cur = clamp(*cur+1, n)
		return m, nil
	case "home", "g":
		*cur = 0
		return m, nil
	case "end", "G":
		*cur = clamp(n-1, n)
		return m, nil
	case "right", "l", "]":
		m.filter = (m.filter + 1) % numTabs
		m.queueCur = 0
		return m, nil
	case "left", "h", "[":
		m.filter = (m.filter + numTabs - 1) % numTabs
		m.queueCur = 0
		return m, nil
	case "1", "2", "3", "4", "5", "6", "7":
		m.filter = int(k.String()[0] - '1')
		m.queueCur = 0
		return m, nil
	}
	switch m.filter {
	case tabMediations:
		return m.mediationKey(k)
	case tabListings:
		return m.listingKey(k)
	case tabBoard:
		return m.boardKey(k)
	case tabTasks:
		return m, nil
	}
	switch k.String() {
	case "space":
		a := m.selected()
		if a == nil {
			return m, nil
		}
		marked := map[string]bool{}
		for id := range m.marked {
			marked[id] = true
		}
		if marked[a.ID] {
			delete(marked, a.ID)
		} else {
			marked[a.ID] = true
		}
		m.marked = marked
		return m, nil
	case "esc":
		if len(m.marked) > 0 {
			m.marked = nil
			m.flash, m.flashErr = "Marks cleared", false
		}
		return m, nil
	case "a":
		if len(m.marked) > 0 {
			return m.bulkApprove()
		}
		a := m.selected()
		if a == nil {
			return m, nil
		}
		if why := m.notApprovable(a); why != "" {
			m.flash, m.flashErr = why, true
			return m, nil
		}
		m.dialog = m.approveDialog(a)
	case "r", "x":
		a := m.selected()
		if a == nil {
			return m, nil
		}
		m.dialog = newDialog("reject", a.ID, fmt.Sprintf("Reject %s %s of %s (nothing moves)", a.Kind, a.ID, a.Amount.Display()),
			step{field: "reason", prompt: "Reason (kept with the decision):", required: true}, confirmStep())
	}
	return m, nil
}

// auditKey handles the keys of the audit trail: it moves, and esc or u closes it.
func (m Model) auditKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	n := len(m.shownAudit())
	switch k.String() {
	case "esc", "u":
		m.auditOpen, m.auditTask = false, ""
		return m, m.load()
	case "enter":
		// A record of a task, or of a queue item of a task: that task described.
		v := m.shownAudit()
		if m.auditCur >= len(v) {
			return m, nil
		}
		id := ""
		if x := v[m.auditCur]; x.EntityType == "task" {
			id = x.EntityID
		} else if s, ok := x.Details["task"].(string); ok {
			id = s
		}
		if id == "" {
			m.flash, m.flashErr = "This record is of no task", true
			return m, nil
		}
		m.auditOpen, m.auditTask = false, ""
		return m.describe(id)
	case "up", "k":
		m.auditCur = clamp(m.auditCur-1, n)
	case "down", "j":
		m.auditCur = clamp(m.auditCur+1, n)
	case "home", "g":
		m.auditCur = 0
	case "end", "G":
		m.auditCur = clamp(n-1, n)
	}
	return m, nil
}

// mediationKey handles the keys of the mediations tab: d (or enter) decides an appealed one.
func (m Model) mediationKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	if k.String() != "d" && k.String() != "enter" {
		return m, nil
	}
	x := m.selectedMediation()
	if x == nil {
		return m, nil
	}
	if x.Status != axp.MediationAppealed {
		why := map[string]string{
			axp.MediationAwaiting: "it waits for statements; the Mediator decides once both sides stated",
			axp.MediationDecided:  "the Mediator decided it; either side may appeal to you",
			axp.MediationResolved: "it is resolved",
		}[x.Status]
		m.flash, m.flashErr = "Only appealed mediations are decided here: "+why, true
		return m, nil
	}
	note := step{field: "note", prompt: "Your reasoning, shown to both sides:", required: true}
	if x.Kind == axp.MediationReviewObjection {
		m.dialog = newDialog("decide", x.ID, fmt.Sprintf("Decide the objection to review %s (task %s), appealed by the %s", x.ReviewID, x.TaskID, x.AppealedBy),
			step{field: "outcome", prompt: "Keep or remove the review? (keep / remove)", required: true,
				validate: func(s string) string {
					if s != "keep" && s != "remove" {
						return "type keep or remove"
					}
					return ""
				}},
			note, confirmStep())
		m.dialog.summary = func(v map[string]string) string {
			if v["outcome"] == "remove" {
				return "The review is removed: it no longer counts in the reputation."
			}
			return "The review stays."
		}
		return m, nil
	}
	price := x.PriceUSD
	// of is a percentage of the price in dollars, when the price is known.
	of := func(p int) string {
		if price == nil {
			return fmt.Sprintf("%d%%", p)
		}
		return fmt.Sprintf("%s (%d%%)", refundOf(*price, p).Display(), p)
	}
	hint, whole := "", "percent of the price"
	if price != nil {
		whole = "percent of the price of " + price.Display()
	}
	if d := x.Decision; d != nil && d.RefundPct != nil {
		hint = "; the Mediator decided " + of(*d.RefundPct)
	}
	m.dialog = newDialog("decide", x.ID, fmt.Sprintf("Decide the dispute of task %s, appealed by the %s", x.TaskID, x.AppealedBy),
		step{field: "refund_pct", prompt: "Refund to the buyer, " + whole + " (0-100" + hint + "):", required: true,
			validate: func(s string) string {
				if _, ok := percent(s); !ok {
					return "a whole number 0 to 100"
				}
				return ""
			},
			show: func(s string) string {
				p, _ := percent(s)
				return "Refund to the buyer: " + of(p)
			}},
		note, confirmStep())
	m.dialog.summary = func(v map[string]string) string {
		p, _ := percent(v["refund_pct"])
		switch p {
		case 100:
			if price != nil {
				return "Full refund to the buyer: " + price.Display() + ", through the approval queue."
			}
			return "Full refund to the buyer, through the approval queue."
		case 0:
			if price != nil {
				return "No refund: the seller is paid the full " + price.Display() + " (less the platform fee), through the approval queue."
			}
			return "No refund: the seller is paid in full, through the approval queue."
		}
		if price != nil {
			back := refundOf(*price, p)
			return fmt.Sprintf("Split: %s back to the buyer, %s of the price to the seller (less the platform fee), through the approval queue.",
				back.Display(), (*price - back).Display())
		}
		return fmt.Sprintf("Split: %d%% back to the buyer, %d%% to the seller, through the approval queue.", p, 100-p)
	}
	return m, nil
}

// refundOf is pct percent of price, rounded to the nearest micro-dollar as the exchange does.
func refundOf(price axp.Money, pct int) axp.Money { return (price*axp.Money(pct) + 50) / 100 }

// percent parses a whole percentage 0-100 ("30" or "30%").
func percent(s string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(s), "%"))
	return n, err == nil && n >= 0 && n <= 100
}

// listingKey handles the keys of the listings tab: o (or enter) overturns a rejection.
func (m Model) listingKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	if k.String() != "o" && k.String() != "enter" {
		return m, nil
	}
	x := m.selectedListing()
	if x == nil {
		return m, nil
	}
	if x.Status != axp.ListingRejected {
		m.flash, m.flashErr = "Rejection "+x.ID+" was already overturned", true
		return m, nil
	}
	m.dialog = newDialog("overturn", x.ID, fmt.Sprintf("Overturn rejection %s (%s, posted %d times): the same brief then passes", x.ID, x.Category, x.Posts),
		step{field: "note", prompt: "Why the listing is acceptable (kept in the audit trail):", required: true}, confirmStep())
	return m, nil
}

// boardKey handles the keys of the board tab: a approves the selected held post (it appears), x
// hides it with a reason its author reads.
func (m Model) boardKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	if k.String() != "a" && k.String() != "x" {
		return m, nil
	}
	p := m.selectedPost()
	if p == nil {
		return m, nil
	}
	what := fmt.Sprintf("%s %s by %s", p.Kind, p.ID, authorName(p.Author))
	if k.String() == "a" {
		m.dialog = newDialog("board_approve", p.ID, "Approve board "+what+": it appears on the board and its author is told",
			step{field: "note", prompt: "Note for the author (optional):"}, confirmStep())
		return m, nil
	}
	m.dialog = newDialog("board_hide", p.ID, "Hide board "+what+": only its author sees it, with your reason",
		step{field: "reason", prompt: "Reason (the author reads it):", required: true}, confirmStep())
	return m, nil
}

// authorName is a board author's name, else the member id.
func authorName(a axp.BoardAuthor) string {
	if a.Name != "" {
		return a.Name
	}
	return a.ID
}

// notApprovable says why queue item a cannot be approved now, or "" when it can.
func (m Model) notApprovable(a *axp.Approval) string {
	switch {
	case a.Status == axp.ApprovalReorged:
		return "This payment left the canonical chain (a reorg): it comes back by itself when the transfer is mined again; if it never does, axp admin payments write-off"
	case a.Status == axp.ApprovalHeld && a.HeldFor == axp.HoldReorg:
		return "Held: a payment of this task left the canonical chain; it is released when the transfer is back"
	case a.Status == axp.ApprovalHeld && a.Sending():
		return "The buyer's part of " + a.ID + " is on its way; the seller's part waits for a payout address"
	case a.Status == axp.ApprovalHeld && !buyerPartAlone(a):
		return "This " + a.Kind + " is held until the seller adds a payout address"
	}
	return ""
}

// buyerPartAlone reports whether approving a held split sends the buyer's part on its own: the
// seller's part waits for a payout address, the buyer's has not been sent.
func buyerPartAlone(a *axp.Approval) bool {
	return a.Kind == axp.ApproveSplit && a.Status == axp.ApprovalHeld && a.HeldFor != axp.HoldReorg && a.BuyerPartTxHash == "" &&
		!a.Sending() && a.RefundUSD > 0
}

// hotWallet reports whether the exchange's hot wallet sends approved payouts, refunds and splits.
func (m Model) hotWallet() bool { return m.rail == "evm" }

// sendsWhat says what approving a payout, refund, split or return sends, and to whom.
func sendsWhat(a axp.Approval) string {
	switch {
	case buyerPartAlone(&a):
		return "the buyer's part, " + a.RefundUSD.Display() + ", to the buyer (the seller's part waits for a payout address)"
	case a.Kind == axp.ApprovePayout && a.PayoutAddress != "":
		return a.Amount.Display() + " to " + partyName(a) + " at payout address " + a.PayoutAddress
	case a.Kind == axp.ApprovePayout:
		return a.Amount.Display() + " to " + partyName(a)
	case a.Kind == axp.ApproveRefund:
		return a.Amount.Display() + " to the buyer"
	case a.Kind == axp.ApproveReturn && a.PayoutAddress != "":
		return a.Amount.Display() + " back to " + a.PayoutAddress
	case a.Kind == axp.ApproveSplit:
		return a.RefundUSD.Display() + " to the buyer and " + a.SellerNetUSD.Display() + " to " + partyName(a)
	}
	return a.Amount.Display()
}

// approveDialog asks what approving a needs: on an exchange with a hot wallet, a payout, refund,
// split or return is confirmed and the exchange sends it; on the manual rail the operator gives the
// hash of the transaction that sent it.
func (m Model) approveDialog(a *axp.Approval) *dialog {
	if !axp.SendsMoney(a.Kind) {
		return newDialog("approve", a.ID, approveTitle(*a), step{field: "note", prompt: "Note (optional):"}, confirmStep())
	}
	if m.hotWallet() {
		d := newDialog("approve", a.ID, "Send "+sendsWhat(*a)+"?",
			step{prompt: "The hot wallet sends it (" + a.Kind + " " + a.ID + ", task " + a.TaskID + "). Press y to send, n or esc to cancel."})
		return d
	}
	return newDialog("approve", a.ID, approveTitle(*a),
		step{field: "tx", prompt: "Transaction hash that sent " + sendsWhat(*a) + " (0x + 64 hex):", required: true,
			validate: func(s string) string {
				if !txPattern.MatchString(s) {
					return "a transaction hash is 0x followed by 64 hex digits"
				}
				return ""
			}},
		step{field: "note", prompt: "Note (optional):"}, confirmStep())
}

// bulkApprove asks once to approve every marked item.
func (m Model) bulkApprove() (tea.Model, tea.Cmd) {
	var ids, lines []string
	for _, a := range m.queue {
		if !m.marked[a.ID] {
			continue
		}
		if why := m.notApprovable(&a); why != "" {
			m.flash, m.flashErr = a.ID+": "+why+" (space unmarks it)", true
			return m, nil
		}
		if axp.SendsMoney(a.Kind) && !m.hotWallet() {
			m.flash, m.flashErr = a.ID+": without a hot wallet each "+a.Kind+" needs the hash of its own transaction: approve it alone (space unmarks it)", true
			return m, nil
		}
		ids = append(ids, a.ID)
		what := approveTitle(a)
		if axp.SendsMoney(a.Kind) {
			what = a.Kind + " " + a.ID + ": send " + sendsWhat(a)
		}
		lines = append(lines, "· "+what)
	}
	if len(ids) == 0 {
		m.marked = nil
		return m, nil
	}
	m.dialog = newDialog("approve_all", strings.Join(ids, " "), fmt.Sprintf("Approve the %d marked items?", len(ids)), confirmStep())
	m.dialog.detail = lines
	return m, nil
}

// approvedReport says what an approval did: the transfers the hot wallet sent, the part sent of
// a held split, or what the approval booked.
func approvedReport(a *axp.Approval) []string {
	var out []string
	sent := func() {
		for _, x := range a.Transfers {
			if x.Status == axp.TransferSent {
				out = append(out, fmt.Sprintf("Sent %s to the %s at %s: %s", x.Amount.Display(), x.Part, x.To, x.TxHash))
			}
		}
	}
	switch {
	case a.Status == axp.ApprovalSent:
		sent()
		out = append(out, fmt.Sprintf("%s %s of task %s is confirmed once its transfers have their confirmations", a.Kind, a.ID, a.TaskID))
	case a.Status == axp.ApprovalHeld && a.Sending():
		sent()
		out = append(out, fmt.Sprintf("The buyer's part of %s %s is booked once confirmed; the seller's part waits for a payout address", a.Kind, a.ID))
	case a.Status == axp.ApprovalHeld && a.BuyerPartTxHash != "":
		out = append(out, fmt.Sprintf("Recorded the buyer's part of %s %s (%s, tx %s); the seller's part waits for a payout address", a.Kind, a.ID, a.RefundUSD.Display(), a.BuyerPartTxHash))
	case a.Recipients() != "":
		out = append(out, fmt.Sprintf("Approved %s %s of task %s: %s", a.Kind, a.ID, a.TaskID, a.Recipients()))
	default:
		out = append(out, fmt.Sprintf("Approved %s %s (task %s)", a.Kind, a.ID, a.TaskID))
	}
	return out
}

// aboutHash reports whether the exchange refused an approval for its transaction hash tx: the
// field at fault is tx_hash, or the message names the transaction (not mined yet, too few
// confirmations).
func aboutHash(err error, tx string) bool {
	var e *axp.Error
	if tx == "" || !errors.As(err, &e) {
		return false
	}
	return e.Field == "tx_hash" || strings.Contains(strings.ToLower(e.Message), strings.ToLower(tx))
}

// approveFailed is the error of an approval whose sending failed at once (the node refused a
// transfer), nil for any other.
func approveFailed(a *axp.Approval) error {
	if a.Status != axp.ApprovalFailed {
		return nil
	}
	return &axp.Error{Code: axp.CodeUnavailable, Message: fmt.Sprintf("%s %s of task %s failed: %s", a.Kind, a.ID, a.TaskID, a.Failure),
		Hint: "it is back in the queue: fix the cause (a hot wallet without ETH for gas: fund it) and approve again"}
}

func approveTitle(a axp.Approval) string {
	switch a.Kind {
	case axp.ApprovePayment:
		return fmt.Sprintf("Confirm payment %s: %s received for task %s", a.ID, a.Amount.Display(), a.TaskID)
	case axp.ApprovePayout:
		return fmt.Sprintf("Approve payout %s: %s to %s", a.ID, a.Amount.Display(), partyName(a))
	case axp.ApproveRefund:
		return fmt.Sprintf("Approve refund %s: %s to the buyer", a.ID, a.Amount.Display())
	case axp.ApproveSplit:
		return fmt.Sprintf("Approve split %s: %s refunded, %s to %s", a.ID, a.RefundUSD.Display(), a.SellerNetUSD.Display(), partyName(a))
	case axp.ApproveReleaseDue:
		return fmt.Sprintf("Release task %s (its auto-release window passed); the payout then waits here", a.TaskID)
	}
	return "Approve " + a.ID
}

func partyName(a axp.Approval) string {
	if a.SellerName != "" {
		return a.SellerName
	}
	return a.SellerID
}

// run starts the action of a completed dialog.
func (m Model) run(d *dialog) tea.Cmd {
	src := m.src
	v := d.values
	id := d.target
	call := func(f func(ctx context.Context) doneMsg) tea.Cmd {
		return m.fetch(func(ctx context.Context) tea.Msg { return f(ctx) })
	}
	switch d.action {
	case "choose":
		return call(func(ctx context.Context) doneMsg {
			t, err := src.Choose(ctx, id, v["offer"])
			if err != nil {
				return doneMsg{err: err}
			}
			return doneMsg{text: "Chose offer " + v["offer"] + "; the task is " + t.Status, task: t}
		})
	case "accept":
		return call(func(ctx context.Context) doneMsg {
			t, err := src.Accept(ctx, id, v["sha256"])
			if err != nil {
				return doneMsg{err: err}
			}
			return doneMsg{text: "Accepted; the task is " + t.Status, task: t}
		})
	case "pay":
		return call(func(ctx context.Context) doneMsg {
			hash, err := src.Pay(ctx, id)
			if err != nil {
				return doneMsg{err: err}
			}
			return doneMsg{text: "Paid task " + id + ": transaction " + hash + "; the task shows the payment once the exchange confirms it"}
		})
	case "dispute":
		return call(func(ctx context.Context) doneMsg {
			t, err := src.Dispute(ctx, id, v["reason"])
			if err != nil {
				return doneMsg{err: err}
			}
			return doneMsg{text: "Disputed; the task is " + t.Status, task: t}
		})
	case "message":
		return call(func(ctx context.Context) doneMsg {
			msg, err := src.PostMessage(ctx, id, v["seller"], v["body"])
			if err != nil {
				return doneMsg{err: err}
			}
			text := "Sent message " + msg.ID
			if n := msg.Screening.Note(); n != "" {
				text += " · " + n
			}
			return doneMsg{text: text}
		})
	case "approve":
		return call(func(ctx context.Context) doneMsg {
			a, err := src.Approve(ctx, id, v["tx"], v["note"])
			if err != nil && aboutHash(err, v["tx"]) {
				// A refused hash is asked again, with the exchange's reason under it.
				return doneMsg{err: err, retry: d.retryAt("tx", errText(err))}
			}
			if err != nil {
				return doneMsg{err: err}
			}
			if err := approveFailed(a); err != nil {
				return doneMsg{err: err}
			}
			r := approvedReport(a)
			if len(r) == 1 {
				return doneMsg{text: r[0]}
			}
			return doneMsg{text: r[len(r)-1], report: r}
		})
	case "approve_all":
		ids := strings.Fields(id)
		timeout := m.opts.CallTimeout
		return func() tea.Msg {
			var lines []string
			failed := 0
			for _, id := range ids {
				ctx, cancel := context.WithTimeout(context.Background(), timeout)
				a, err := src.Approve(ctx, id, "", "")
				cancel()
				if err == nil {
					err = approveFailed(a)
				}
				if err != nil {
					failed++
					lines = append(lines, "✗ "+id+": "+errText(err))
					continue
				}
				for i, l := range approvedReport(a) {
					if i == 0 {
						l = "✓ " + l
					} else {
						l = "  " + l
					}
					lines = append(lines, l)
				}
			}
			text := fmt.Sprintf("Approved %d of %d marked items", len(ids)-failed, len(ids))
			return doneMsg{text: text, bad: failed > 0, report: lines}
		}
	case "reject":
		return call(func(ctx context.Context) doneMsg {
			a, err := src.Reject(ctx, id, v["reason"])
			if err != nil {
				return doneMsg{err: err}
			}
			return doneMsg{text: fmt.Sprintf("Rejected %s %s (task %s)", a.Kind, a.ID, a.TaskID)}
		})
	case "decide":
		var pct *int
		if p, ok := percent(v["refund_pct"]); ok {
			pct = &p
		}
		return call(func(ctx context.Context) doneMsg {
			x, err := src.DecideMediation(ctx, id, pct, v["outcome"], v["note"])
			if err != nil {
				return doneMsg{err: err}
			}
			return doneMsg{text: decidedText(x)}
		})
	case "overturn":
		return call(func(ctx context.Context) doneMsg {
			r, err := src.OverturnListing(ctx, id, v["note"])
			if err != nil {
				return doneMsg{err: err}
			}
			return doneMsg{text: fmt.Sprintf("Overturned rejection %s (%s): the same brief now passes", r.ID, r.Category)}
		})
	case "board_approve":
		return call(func(ctx context.Context) doneMsg {
			p, err := src.ApproveBoardPost(ctx, id, v["note"])
			if err != nil {
				return doneMsg{err: err}
			}
			return doneMsg{text: fmt.Sprintf("Approved %s %s by %s: now %s", p.Kind, p.ID, authorName(p.Author), p.Status)}
		})
	case "board_hide":
		return call(func(ctx context.Context) doneMsg {
			p, err := src.HideBoardPost(ctx, id, v["reason"])
			if err != nil {
				return doneMsg{err: err}
			}
			return doneMsg{text: fmt.Sprintf("Hid %s %s by %s: now %s", p.Kind, p.ID, authorName(p.Author), p.Status)}
		})
	}
	return nil
}

// decidedText reports the operator's decision on a mediation (short enough for the flash line).
func decidedText(x *axp.Mediation) string {
	d := x.OperatorDecision
	if d == nil {
		d = x.Decision
	}
	s := "Decided " + x.ID
	switch {
	case d == nil:
		return s
	case x.Kind == axp.MediationReviewObjection && d.Outcome == "remove":
		return s + ": the review is removed"
	case x.Kind == axp.MediationReviewObjection:
		return s + ": the review is kept"
	case d.ApprovalID != "":
		return s + ": " + decisionShort(d) + ", queued for approval"
	}
	return s + ": " + decisionShort(d)
}

// dialog is a confirmation, possibly after a few text inputs.
type dialog struct {
	action string
	target string
	title  string
	steps  []step
	at     int
	values map[string]string
	input  []rune
	err    string
	// summary, when set, says at the confirmation what the entered values will do.
	summary func(values map[string]string) string
	// detail, when set, are lines under the title (the items of a bulk approval).
	detail []string
}

// step is one input (field set) or the final confirmation (field empty).
type step struct {
	field    string
	prompt   string
	required bool
	validate func(string) string
	// show, when set, is how the confirmation shows the entered value (words instead of the
	// field's name and raw value).
	show func(string) string
}

func confirmStep() step { return step{prompt: "Press y to confirm, n or esc to cancel."} }

func newDialog(action, target, title string, steps ...step) *dialog {
	return &dialog{action: action, target: target, title: title, steps: steps, values: map[string]string{}}
}

func (d *dialog) current() step { return d.steps[d.at] }

// retryAt is a copy of the dialog back at the step of field, its value in the input and why as
// the error under it.
func (d *dialog) retryAt(field, why string) *dialog {
	c := d.clone()
	for i, s := range c.steps {
		if s.field == field {
			c.at, c.input, c.err = i, []rune(c.values[field]), why
		}
	}
	return c
}

// clone copies the dialog, so that an update never changes the model it started from.
func (d *dialog) clone() *dialog {
	c := *d
	c.values = make(map[string]string, len(d.values))
	for k, v := range d.values {
		c.values[k] = v
	}
	c.input = append([]rune(nil), d.input...)
	return &c
}

func (d *dialog) insert(s string) {
	if d.current().field == "" {
		return
	}
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\t' {
			return ' '
		}
		return r
	}, s)
	if utf8.RuneCountInString(s)+len(d.input) > 2000 {
		return
	}
	d.input = append(d.input, []rune(s)...)
	d.err = ""
}

func (m Model) dialogKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	d := m.dialog.clone()
	m.dialog = d
	s := d.current()
	if k.String() == "esc" {
		m.dialog = nil
		m.flash, m.flashErr = "Cancelled", false
		return m, nil
	}
	if s.field == "" {
		switch k.String() {
		case "y", "Y":
			m.dialog = nil
			if d.action == "approve_all" {
				m.marked = nil
			}
			if d.action == "message" && m.open != nil && m.open.id == d.target {
				m.open = m.open.clone()
				m.open.pane = paneMessages
			}
			m.flash, m.flashErr = "Working…", false
			return m, m.run(d)
		case "n", "N":
			m.dialog = nil
			m.flash, m.flashErr = "Cancelled", false
		}
		return m, nil
	}
	switch k.String() {
	case "enter":
		v := strings.TrimSpace(string(d.input))
		if s.required && v == "" {
			d.err = "required"
			return m, nil
		}
		if s.validate != nil && v != "" {
			if e := s.validate(v); e != "" {
				d.err = e
				return m, nil
			}
		}
		d.values[s.field] = v
		d.at++
		d.input, d.err = nil, ""
	case "backspace":
		if len(d.input) > 0 {
			d.input = d.input[:len(d.input)-1]
		}
	case "ctrl+u":
		d.input = nil
	default:
		if k.Text != "" {
			d.insert(k.Text)
		}
	}
	return m, nil
}
