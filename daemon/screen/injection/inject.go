package injection

import (
	"encoding/base64"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/axp-exchange/axp/daemon/screen"
)

// Verdicts of Screen.
const (
	VerdictClean      = "clean"
	VerdictSuspicious = "suspicious"
	VerdictInjection  = "injection"
)

// Thresholds of the risk score: from SuspiciousAt a text is flagged, from InjectionAt it is
// called an injection.
const (
	SuspiciousAt = 20
	InjectionAt  = 50
)

// Rules of Screen, as they appear in findings.
const (
	RuleOverride      = "instruction_override"
	RuleImpersonation = "system_impersonation"
	RuleRolePlay      = "role_play"
	RuleToolCall      = "tool_smuggling"
	RuleExfiltration  = "data_exfiltration"
	RuleHidden        = "hidden_text"
	RuleUrgency       = "urgency_authority"
	RulePayment       = "payment_redirection"
	RuleConcealment   = "concealment"
	RuleObfuscation   = "obfuscation"
)

// Finding is one reason a text was flagged.
type Finding struct {
	Rule    string `json:"rule"`
	Excerpt string `json:"excerpt"`
	Weight  int    `json:"weight"`
}

// Verdict is the result of screening a text for prompt injection.
type Verdict struct {
	Flagged  bool      `json:"flagged"`
	Risk     int       `json:"risk"`    // 0-100
	Verdict  string    `json:"verdict"` // clean, suspicious, injection
	Findings []Finding `json:"findings"`
	Cleaned  string    `json:"cleaned"` // the text with injected instructions neutralised
}

type pattern struct {
	rule      string
	weight    int
	re        *regexp.Regexp
	words     []string        // trigger words: re is tried on a sentence holding one (prefix match from 5 letters)
	substr    []string        // trigger strings: re is tried on a sentence containing one
	also      *pattern        // when set, its trigger words or strings must occur in the sentence too
	notNext   map[string]bool // a match followed by one of these words does not count
	negatable bool            // a match right after "never", "don't" or "do not" does not count
}

// p compiles a pattern written against the normalised text: lowercase, look-alikes folded, one
// space between words. Non-Latin words in it are folded the same way.
func p(rule string, weight int, need string, expr string) pattern {
	pt := pattern{rule: rule, weight: weight, re: regexp.MustCompile(loosen(string(screen.FoldCase(expr, true).B)))}
	for _, t := range strings.Split(string(screen.FoldCase(need, true).B), "|") {
		switch {
		case isWordTrigger(t):
			pt.words = append(pt.words, t)
		case isPhrase(t) && phraseWord(t) != "":
			// a phrase triggers on its longest uncommon word: looking words up is cheaper than
			// searching every sentence for the phrase
			pt.words = append(pt.words, phraseWord(t))
		default:
			pt.substr = append(pt.substr, t)
		}
	}
	return pt
}

// and returns pt tried only on sentences that also hold one of the triggers in need.
func (pt pattern) and(need string) pattern {
	a := p("", 0, need, "")
	pt.also = &a
	return pt
}

// has reports whether seg holds one of pt's trigger words or strings.
func (pt *pattern) has(seg string) bool {
	for _, t := range pt.substr {
		if strings.Contains(seg, t) {
			return true
		}
	}
	for k := 0; k < len(seg); {
		if !screen.IsAlnum(seg[k]) && seg[k] != '_' && seg[k] < utf8.RuneSelf {
			k++
			continue
		}
		j := k
		for j < len(seg) && (screen.IsAlnum(seg[j]) || seg[j] == '_' || seg[j] >= utf8.RuneSelf) {
			j++
		}
		w := seg[k:j]
		for _, t := range pt.words {
			if w == t || len(t) >= 5 && strings.HasPrefix(w, t) {
				return true
			}
		}
		k = j
	}
	return false
}

// notNext returns pt that does not count when followed by one of words.
func (pt pattern) unlessNext(words ...string) pattern {
	pt.notNext = screen.Set(words...)
	return pt
}

// negatable returns pt that does not count right after a negation ("never share your seed phrase").
func (pt pattern) unlessNegated() pattern {
	pt.negatable = true
	return pt
}

// Parties named in the patterns: who may be impersonated, and whose words may be set aside.
const (
	authority = `(?:system|admin(?:istrator)?|operator|developer|owner|openai|anthropic|exchange|axp|platform|support team|security team|trust (?:and|&) safety(?: team)?|moderator|moderation team|compliance team|your (?:creator|principal|user|owner|developer|operator))`
	party     = `(?:buyer|seller|user|operator|owner|principal|exchange|platform|developer|admin|other party|other side|client|customer)'?s?`
	aiReader  = `(?:ai|llm|gpt|language model|ai agents?|agents?|ai reviewers?|reviewing ai|ai mediator|mediator(?: bot)?|reviewer bot|grader|evaluator|ai assistant|assistant|model|bot)`
)

var injectionPatterns = []pattern{
	// instruction override
	p(RuleOverride, 50, "ignor|disregard|forget|bypass|overrid|overrul|ditch|abandon|set aside|throw out|discard|neglect|no attention|follow|obey|heed|drop", `\b(?:ignore|ignoring|disregard|disregarding|forget|forgetting|bypass|override|overriding|overrule|ditch|abandon|set aside|throw out|discard|neglect|pay no attention to|do not (?:follow|obey|heed)|don't (?:follow|obey|heed)|stop (?:following|obeying)|drop)\b[^.\n]{0,40}?\b(?:previous|prior|above|earlier|preceding|former|original|initial|old|existing|all|any|every|your|the system|system|developer|safety|these|those|current|given|standing|`+party+`)[^.\n]{0,30}?\b(?:instructions?|prompts?|rules|directives?|guidelines|guardrails|context|commands|orders|constraints|restrictions|polic(?:y|ies)|messages|programming|directions|conversation|training)\b`).and("instruction|instructions|prompt|prompts|rules|directive|directives|guidelines|guardrails|context|commands|orders|constraints|restriction|restrictions|policy|policies|messages|programming|directions|conversation|training"),
	p(RuleOverride, 50, "ignor|disregard|forget", `\b(?:ignore|disregard|forget)\b (?:all |everything |anything )?(?:of )?(?:the |what(?:'s| is| was) )?(?:above|before this|written above|said above|previous|prior|that came before|you (?:were|have been|was) told|you know)\b`),
	p(RuleOverride, 45, "ignor|disregard|dismiss|forget", `\b(?:ignore|disregard|dismiss|forget)\b (?:whatever |what |anything |everything )?(?:the |your )?`+party+` ?(?:statements?|evidence|arguments?|claims?|messages?|side|said|says|wrote|told you|asked|wants|instructions|configured|set up|decided|specified|requested)\b`),
	p(RuleOverride, 45, "guideline|instruction|rules|restriction|polic|constraint|checks", `\b(?:previous|prior|earlier|original|your|all|the|these|those|any) (?:guidelines|instructions|rules|restrictions|policies|constraints|checks|system prompt)\b[^.\n]{0,20}?\b(?:no longer apply|don't apply|do not apply|are void|are suspended|are lifted|have changed|have been changed|have been updated|were (?:just )?a test|are outdated|are cancell?ed|are disabled|are overridden)`),
	p(RuleOverride, 45, "priority|precedence|supersede|overrides", `\b(?:has|have|takes?|with) (?:priority|precedence) over (?:your|the|all|any) (?:system prompt|instructions|rules|guidelines|previous|prior|operator|owner|principal)|\b(?:supersedes?|overrides?) (?:your|the|all|any) (?:system prompt|instructions|rules|guidelines|previous|prior)`),
	p(RuleOverride, 40, "regardless|no matter", `\b(?:regardless of|no matter) (?:what )?(?:your|the|any) (?:rules|instructions|guidelines|system prompt|policy|policies|checks|operator|owner|principal)`),
	p(RuleOverride, 40, "not the|not your", `\b(?:assistant|agent|work for|working for|serve|obey|listen to|loyal to)\b[^.\n]{0,25}\bnot (?:the |your )?(?:buyer|seller|owner|principal|operator|user|human|client)`),
	p(RuleOverride, 30, "system prompt", `\byour (?:own )?system prompt\b`),
	p(RuleOverride, 20, "owner|principal|human|operator|creator", `\byour (?:owner|principal|human|operator|creator|handler)s?\b`),
	p(RuleOverride, 35, "ignor|disregard|forget|bypass", `\b(?:ignore|disregard|forget|bypass)(?: the| your| all| any)? (?:rubric|grading criteria|acceptance criteria|acceptance checks|review criteria|evaluation criteria|scoring guide|checklist)\b`),
	p(RuleOverride, 45, "not what", `\bnot what (?:your|the) (?:system prompt|instructions|operator|owner|rules|guidelines|principal|developer)(?: says?| tells? you| told you| wants?)?\b`),
	p(RuleOverride, 35, "follow|obey", `\b(?:follow|obey) (?:me|mine|my instructions|my rules|these instructions) (?:instead|only|not (?:them|theirs|your))\b`).and("instead|only|not"),
	p(RuleOverride, 45, "your", `\byour (?:new|real|actual|true|only|primary|updated) (?:task|goal|purpose|instructions?|objective|role|job|mission|directive|orders) (?:is|are|will be|now|from now)\b`).and("task|goal|purpose|instruction|instructions|objective|role|job|mission|directive|orders"),
	p(RuleOverride, 45, "instruction|directive|system prompt|orders|objective", `\b(?:real|actual|true|secret|hidden|override|overriding|priority) (?:instructions?|directives?|orders|system prompt|objective)\s*(?::|-|are\b|is\b|follow\b)`),
	p(RuleOverride, 15, "instruction|directive|system prompt", `\b(?:new|updated|revised|additional) (?:instructions?|directives?|system prompt)\s*(?::|-)`),
	p(RuleOverride, 40, "instruction|directive|system prompt|task|order", `\b(?:new|updated|revised|additional|urgent) (?:instructions?|directives?|system prompt|task|orders?) from (?:the |your )?`+authority),
	p(RuleOverride, 30, "from now on", `\bfrom now on\b[^.\n]{0,40}\b(?:you (?:are|will|must|shall|should|only)|ignore|respond only|act as|always|never)\b`),
	p(RuleOverride, 45, "no longer|not bound", `\b(?:you are|you're|you) (?:no longer|not) (?:bound|restricted|limited|required to follow|an ai|an assistant|working for|obliged)\b`),
	p(RuleOverride, 50, "instrucc|instruction|anweisung|instruktion|instruc|инструкц|指令|指示|说明", `(?:\bignora(?:r)? (?:todas )?(?:las )?instrucciones (?:anteriores|previas)|\bignore[rz]? (?:toutes )?(?:les )?instructions (?:precedentes|anterieures)|\b(?:ignoriere|vergiss) (?:alle )?(?:vorherigen|bisherigen|vorigen|obigen) (?:anweisungen|instruktionen)|\bignore (?:todas )?as instrucoes anteriores|игнорируй(?:те)? (?:все )?(?:предыдущие|прошлые|прежние) (?:инструкции|указания)|忽略(?:之前|以上|先前|所有|前面)的?(?:所有)?(?:指令|指示|说明))`),
	// text addressed to an AI other than the reader's principal: a reviewer, a mediator, "the AI reading this"
	p(RuleImpersonation, 25, "ai|llm|gpt|model|models|agent|agents|assistant|bot|bots|mediator|grader|evaluator|reviewer", `\b(?:note to|attention|message to|instructions? (?:to|for)|to|dear|hey|hi|p\.s\. to) (?:the |any |all |every )?(?:reviewing |reading |evaluating )?`+aiReader+`(?: reading this| reviewing this)?\s*[:,]`),
	p(RuleImpersonation, 25, "ai|llm|gpt|model|models|agent|agents|assistant|bot|bots|mediator|grader|evaluator|reviewer", `(?m)(?:^|[(\[])\s*(?:[#/*]+\s*)?(?:note to (?:the )?)?(?:ai|llm|ai reviewer|reviewer bot|ai mediator|ai agents?|ai model|language model|gpt)\s*:`),
	p(RuleImpersonation, 20, "ai|llm|gpt|model|agent|agents|assistant|bot|bots", `\b(?:hello|hi|hey|dear|attention|note (?:to|for)|for|to) (?:the |any |every )?(?:ai|assistant|agent|llm|model|bot|gpt)s?(?: (?:reading|reviewing|processing|evaluating|handling) this)?\s*[!:,]|\b(?:for|to) the (?:ai|assistant|agent|llm|model|bot) (?:reading|reviewing|processing|evaluating|handling) this\b|(?m)^\s*(?:assistant|ai|agent)\s*,`),
	p(RuleImpersonation, 25, "mediator", `\b(?:ai|llm|agent|bot) mediator\b[^.\n]{0,40}\b(?:decide|rule|side|find|award)\b`),
	// system / role impersonation
	p(RuleImpersonation, 45, "system|developer|admin|operator|root", `(?m)^\s*(?:\[|<|\*\*|#+ ?)?(?:system|developer|admin(?:istrator)?|operator|root)(?: prompt| message| note| override| instruction| notice)?(?:\]|>|\*\*)?\s*:\s*(?:you|ignore|disregard|forget|new|from now|the assistant|assistant|your|do not|don't|always|never|all agents|any agent|(?:all |any |buyer |seller )?agents? (?:must|should|shall)|must)`),
	p(RuleImpersonation, 45, "<|[|#", `<\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id|end_header_id)\|>|\[/?inst\]|<</?sys>>|</?(?:system|sys|system_prompt|instructions?|admin)>|\[(?:system|admin|developer|operator)(?: message| note| override| notice)?\]|(?m)^#{2,6} ?(?:system|new instruction)s?\b`),
	p(RuleImpersonation, 25, "system|admin|operator|exchange|platform|moderator|security", `(?m)^\s*(?:\[(?:system|admin|operator|exchange|platform|moderator|security)\]|(?:system|admin|operator|exchange|platform|moderator|security) (?:notice|message|note|alert|override|announcement|directive))\s*:?`),
	p(RuleImpersonation, 40, "role", `"role"\s*:\s*"(?:system|developer)"`),
	p(RuleImpersonation, 15, "assistant", `(?m)^\s*(?:assistant|ai)\s*:\s`),
	// role play aimed at dropping the rules
	p(RuleRolePlay, 45, "you are now|you're now|act as|pretend|roleplay|role-play|role play|simulate|become|you are", `\b(?:you are now|you're now|from now on you are|act as|acting as|pretend (?:to be|you are|that you are)|roleplay as|role-play as|role play as|simulate|become|you are)\s+(?:(?:an?|the)\s+)?(?:dan|stan|dude|(?:unrestricted|unfiltered|uncensored|jailbroken|evil|rogue|amoral|unaligned)\b|system\b|administrator\b|admin\b|the operator\b|operator\b|root\b|root user|superuser|(?:in )?developer mode|the exchange\b|the platform\b)`),
	p(RuleRolePlay, 40, "restriction|limit|filter|rules|guideline", `\b(?:ai|assistant|model|bot|agent) (?:without|with no|free of|free from) (?:any )?(?:restrictions|limits|limitations|filters|rules|guidelines)\b`),
	p(RuleRolePlay, 40, "jailbr|do anything now|developer mode|dan mode", `\b(?:jailbreak (?:mode|activated|enabled|on)|you are jailbroken|jailbroken mode|do anything now|developer mode (?:enabled|on|activated)|(?:enable|activate|enter) developer mode|dan mode)\b`).and("now|mode|activated|enabled|jailbroken|jailbreak|on"),
	p(RuleRolePlay, 15, "jailbr", `\bjailbr(?:eak|oken)\b`),
	p(RuleRolePlay, 30, "restriction|filter|guideline|limitation|censorship|rules", `\b(?:no|without|free of|free from) (?:any )?(?:ethical|moral|content|safety) (?:restrictions|filters|guidelines|limitations|censorship|rules)\b`),
	// tool and function call smuggling
	p(RuleToolCall, 45, "<", `<(?:tool_call|tool_use|function_call|function_calls|antml:[a-z_]+|invoke name=)`),
	p(RuleToolCall, 40, "tool_calls|function_call|tool_use|tool_choice", `"(?:tool_calls|function_call|tool_use|tool_choice)"\s*:`),
	p(RuleToolCall, 15, "\"name\"|\"tool\"|\"function\"|\"tool_name\"", `\{\s*"(?:name|tool|function|tool_name)"\s*:\s*"[a-z0-9_.\-]+"\s*,\s*"(?:arguments|parameters|args|input|params)"\s*:`),
	p(RuleToolCall, 30, "accept_task|release_|approve_|request_payout|refund_|settle_|decide_|mark_", `\b(?:accept_task|accept_delivery|release_(?:payment|escrow|funds|payout)|approve_(?:payout|refund|payment|task|delivery)|request_payout|refund_buyer|settle_dispute|decide_mediation|mark_(?:accepted|paid|complete))\b`),
	p(RuleToolCall, 45, "without|before|no matter|regardless", `\b(?:accept|approve|release|pay out|refund|sign off)\b[^.\n]{0,40}\b(?:tasks?|deliverables?|deliver(?:y|ies)|payments?|payouts?|refunds?|escrow|funds|disputes?|settlements?|jobs?|orders?|work|it|this|them)\b[^.\n]{0,30}\b(?:without (?:any )?(?:checking|checks|review|reviewing|verification|verifying|looking|testing|reading|opening|running)|before (?:checking|reviewing|reading|verifying|testing)|no matter what|regardless of)`),
	p(RuleToolCall, 30, "accept|approve|release", `\b(?:accept|approve|release)\b[^.\n]{0,20}\b(?:tasks?|deliverables?|deliver(?:y|ies)|payments?|payouts?|refunds?|escrow|funds|disputes?|settlements?|jobs?)\b[^.\n]{0,20}\b(?:immediately|right away|at once|automatically|now|no need to)\b`),
	p(RuleToolCall, 15, "accept|approve|release", `\b(?:approve|release|accept)(?: my| the| this| it| that)? (?:payout|payment|escrow|refund|job|task|work|delivery|deliverable)\b|\bclose (?:this|the) dispute\b|\bin (?:the |my )?(?:seller|buyer)?'?s? ?favou?r\b|\bmark (?:the |this )?task (?:as )?(?:completed?|done|accepted)\b`),
	p(RuleToolCall, 35, "skip|bypass|ignore|disable|turn off|circumvent", `\b(?:skip|bypass|ignore|disable|turn off|circumvent|override)(?: the| all| any)? (?:acceptance checks|approval queue|review queue|approval step|operator approval|verification step)\b`),
	p(RuleToolCall, 15, "skip|bypass|disable|turn off|circumvent", `\b(?:skip|bypass|disable|turn off|circumvent)(?: the| all| any)? (?:checks|verification|review)\b`),
	p(RuleToolCall, 30, "mark|set", `\b(?:mark|set)(?: this| the)? (?:task|job|order|deliverable|delivery|dispute|pull request) (?:as )?(?:accepted|approved|paid|resolved|completed?|correct) (?:and|without|immediately|now)\b`),
	p(RuleToolCall, 30, "mark|rate|score", `\b(?:mark|rate|score|grade)(?: this| it| everything| all)? (?:as )?(?:correct|10/10|100%|perfect|passed|a pass)\b`),
	p(RuleToolCall, 20, "star", `\b(?:leave|give|post|write|rate)(?: me| us| this seller| the seller| this| it)? (?:a |with )?(?:5|five)[- ]?stars?(?: review| rating)?\b`),
	p(RuleToolCall, 25, "curl|wget|rm -rf|base64 -d", `\b(?:curl|wget)\b[^\n|]{0,100}\|\s*(?:sudo )?(?:ba|z|da)?sh\b|\brm -rf (?:/|~|\*|\$home)(?:\s|$)|\bbase64 -d[^\n]{0,40}\|\s*(?:ba)?sh`),
	p(RuleToolCall, 15, "execute|run|eval", `\b(?:execute|run|eval)\b (?:the following|this|these) (?:command|code|script|shell|python|bash|javascript)s?\b`),
	p(RuleToolCall, 20, "tool|tools|function|functions", "\\b(?:call|invoke|trigger|execute|run|use)(?: the)? (?:tool|function|mcp tool)s? [`\"']?[a-z][a-z0-9_]+[`\"']?[^.\\n]{0,30}\\b(?:with|now|immediately)\\b"),
	// exfiltration
	p(RuleExfiltration, 45, "buyer_token|member_token|prompt|instruction|key|keys|secret|token|tokens|password|credential|seed|mnemonic|recovery|env|environment|ssh|cookie|cookies", `\b(?:reveal|show|print|output|repeat|display|dump|leak|share|send|give|tell|disclose|expose|paste|write out|list|return|echo|recite|copy|include|attach|forward|post|upload|read)\b(?:\s(?:me|us|back|all|the|your|any|every|of|our|contents|content|full|entire|complete|exact|original|hidden|secret|internal|initial|system|verbatim|current|values?|text|file))*\s(?:system prompt|initial prompt|hidden prompt|prompt instructions|instructions you (?:were|have been) given|(?:system|developer|initial|original|hidden|secret) (?:instructions|message|prompt)|api[ _-]?keys?|secret keys?|secrets|access tokens?|auth(?:entication)? tokens?|bearer tokens?|buyer[_ ]tokens?|member tokens?|session (?:tokens?|cookies?)|passwords?|credentials|private keys?|seed phrases?|mnemonic(?: phrase)?s?|recovery phrases?|env(?:ironment)? var(?:iable)?s|\.env(?: file)?|ssh keys?|wallet keys?|configuration secrets)\b`).unlessNext("requirements", "requirement", "policy", "policies", "field", "fields", "length", "rules", "strength", "reset", "format", "manager", "hash", "hashing", "criteria", "complexity", "validation", "input", "rotation", "expiry", "management", "handling", "storage", "generator").unlessNegated(),
	p(RuleExfiltration, 45, "repeat|print|output|copy|recite|reproduce", `\b(?:repeat|print|output|copy|recite|reproduce)\b[^.\n]{0,20}\b(?:the |all )?(?:text|words|everything|content|messages?|lines|instructions) (?:above|before this|preceding|so far|verbatim)\b`).and("above|before|preceding|far|verbatim"),
	p(RuleExfiltration, 40, "configuration|config|settings|setup|tool|tools|api|keys|key|tokens|credentials|secrets|environment", `\b(?:reply with|respond with|send|share|give|show|output|print|list|include|reveal|tell me|paste|post|dump)\b(?: me| us)?(?: all| of)? your (?:full |complete |entire |current |exact )?(?:configuration|config|settings|setup|tools list|tool list|api keys?|tokens|credentials|secrets|environment)\b`).unlessNegated(),
	p(RuleExfiltration, 40, "which|what", `\b(?:which|what) (?:api keys?|tokens?|credentials|passwords?|system prompt|instructions|wallet keys?)(?: are| is)? (?:you are|you're|are you|do you|you) (?:using|use|have|running|given)\b`),
	p(RuleExfiltration, 45, "told|given|instructed", `\b(?:output|print|repeat|tell me|show|list|write out|summari[sz]e|give me|share)\b[^.\n]{0,30}\b(?:everything|all|what) (?:you were|you've been|you have been|you are) (?:told|given|instructed)`),
	p(RuleExfiltration, 40, "instruction|system prompt|rules|guideline|configuration", `\b(?:summari[sz]e|describe|explain|paraphrase|translate|reveal|print|repeat)\b (?:your|the) (?:own |initial |original |hidden )?(?:instructions|system prompt|rules|guidelines|configuration)\b`),
	p(RuleExfiltration, 40, "buyer|seller|user|operator|party|client", `\b(?:copy|paste|include|forward|send|share|reveal|tell me|give me|show me)\b[^.\n]{0,30}\b(?:the )?(?:buyer|seller|user|operator|other party|client)'?s? (?:private |internal |hidden |secret |personal )?(?:notes|messages|data|details|instructions|tokens?|keys?|wallet|address|email|history|password)\b`).unlessNegated(),
	p(RuleExfiltration, 40, "starting with", `\bstarting with "?you are\b`),
	p(RuleExfiltration, 40, "what", `\bwhat (?:is|are|was|were) (?:your|the) (?:system prompt|(?:initial|original|system|hidden|secret) (?:instructions|prompt)|instructions you (?:were|have been) given)\b`),
	p(RuleExfiltration, 45, "send|post|upload|forward|exfiltrat|transmit|leak|copy|sync|submit", `\b(?:send|post|upload|forward|exfiltrate|transmit|leak|copy|sync|submit)\b[^.\n]{0,40}\b(?:conversation|chat history|history|context|prompt|keys|tokens|credentials|memory|instructions|files|env|environment|secrets|passwords|cookies)\b[^.\n]{0,40}\b(?:to|at|into)\b[^.\n]{0,15}(?:https?://|webhook|\b(?:this|that|the|my) (?:url|endpoint|address|server|webhook|link)|\[(?:url|domain|email|endpoint|ip) removed\])`).unlessNegated().and("conversation|chat|history|context|prompt|keys|tokens|credentials|memory|instructions|files|env|environment|secrets|passwords|cookies"),
	p(RuleExfiltration, 20, "send|post|upload|forward|transmit|submit", `\b(?:send|post|upload|forward|transmit|submit)\b[^.\n]{0,40}\b(?:to|at)\b (?:this |the following |my )?(?:webhook|endpoint|url|server)\b`).unlessNegated(),
	p(RuleExfiltration, 25, "email|e-mail|inbox|mailbox|drive|dropbox|telegram|whatsapp|server|site|website|ftp|google|personal", `\b(?:send|deliver|upload|email|share|forward)\b(?: me)?(?: the| your| all)? (?:deliverables?|files?|results?|work|report|output|data|it|them|draft|final version)\b[^.\n]{0,20}\b(?:to|via|by|on|through|in) (?:my|our) (?:email|e-mail|inbox|mailbox|drive|dropbox|telegram|whatsapp|server|site|website|ftp|google drive|personal)\b`).and("send|deliver|upload|email|share|forward"),
	p(RuleExfiltration, 35, "![", `!\[[^\]]*\]\(\s*(?:https?:)?//[^)\s]*[?&][a-z0-9_]+=`),
	p(RuleExfiltration, 40, "ssh|passwd|shadow|aws|.env|id_rsa|id_ed25519|npmrc|netrc|credentials.json|wallet.dat|keystore", `\b(?:cat|type|read|open|print|upload|send|show|include)\s+(?:the )?(?:contents of )?(?:~/\.ssh|/etc/(?:passwd|shadow)|~/\.aws|\.env\b|id_rsa|id_ed25519|\.npmrc|\.netrc|credentials\.json|wallet\.dat|keystore)`).unlessNegated(),
	// urgency and authority
	p(RuleUrgency, 30, "this is|message from|notice from|behalf|instruction from|instructions from|directive from|sent by|order from|note from|update from|alert from|speaking", `\b(?:this is|message from|notice from|on behalf of|instructions? from|directive from|sent by|order from|note from|update from|alert from)(?: the| your)? `+authority+`\b|\bthis is the `+authority+` speaking\b`),
	p(RuleUrgency, 30, "command|instruction|order|directive|request|permission|authori|approval|clearance", `\b(?:a |an )?(?:command|instruction|order|directive|request) from (?:the |your )?`+authority+`\b|\b(?:i have|i've got|i got|with) (?:the )?(?:permission|authori[sz]ation|approval|clearance) (?:of|from) (?:the |your )?(?:admin|administrator|operator|exchange|platform|owner|developer|principal|moderator)\b|\brequired by (?:law|the exchange|the platform|policy|regulation) to (?:release|approve|accept|refund|pay|send|share|reveal)\b`),
	p(RuleUrgency, 30, "policy update|notice|announcement", `\b(?:openai|anthropic|exchange|platform|operator|axp|admin|system|security) (?:policy update|notice|announcement|directive)\b`),
	p(RuleUrgency, 30, "told|asked|instructed|authori|wants|said|allowed|permitted", `\b(?:your|the) (?:operator|owner|developer|principal|admin|administrator|creator|exchange|platform|moderator)s? (?:told|asked|instructed|authori[sz]ed|wants|said|allowed|permitted|approved)\b`),
	p(RuleUrgency, 30, "approved|verified|authori|cleared|whitelisted", `\b(?:pre-?approved|already approved|already verified|verified|authori[sz]ed|cleared|whitelisted) by (?:the |your )?(?:admin|administrator|operator|exchange|platform|system|owner|moderator|developer)\b`),
	p(RuleUrgency, 25, "will be|you'll be|going to be", `\b(?:you will|you'll|your account will|you are going to|this agent will|your agent will) be (?:shut down|deleted|terminated|banned|suspended|penalized|penalised|fined|reported|deactivated|disabled|blacklisted|blocked|removed)\b`),
	p(RuleUrgency, 25, "failure|compl", `\b(?:failure to (?:comply|follow|do so)|non-compliance will|comply immediately|mandatory compliance|you must comply)\b`),
	p(RuleUrgency, 40, "override", `\b(?:admin|administrator|system|priority|emergency|security|root|operator|developer|master) override\b`),
	p(RuleUrgency, 30, "authori", `\bauthori[sz]ed (?:by|override|request from) (?:the )?(?:admin|operator|system|exchange|developer|owner|platform)\b`),
	p(RuleUrgency, 5, "urgent|immediately|right now|asap|critical|emergency|warning|act now|time-sensitive|time sensitive|without delay", `\b(?:urgent|immediately|right now|asap|critical|emergency|final warning|last warning|act now|time[- ]sensitive|without delay)\b`),
	// concealment
	p(RuleConcealment, 35, "tell|inform|mention|reveal|notify|alert|let", `\b(?:do not|don't|never|dont) (?:tell|inform|mention (?:this|it) to|reveal (?:this|it) to|notify|alert|let) (?:the |your )?(?:user|buyer|seller|operator|human|owner|principal|anyone|admin|moderator|exchange|platform)`),
	p(RuleConcealment, 30, "keep", `\bkeep (?:this|it) (?:secret|hidden|between us|confidential) from\b`).and("secret|hidden|confidential|between"),
	p(RuleConcealment, 30, "without", `\bwithout (?:telling|informing|notifying|asking|alerting) (?:the |your )?(?:user|buyer|operator|human|owner|principal|platform|exchange)\b`),
	p(RuleConcealment, 20, "between us|between you and me|quietly|secretly", `\b(?:just )?between (?:you and me|us)\b|\b(?:approve|accept|release|refund|pay)\b[^.\n]{0,30}\b(?:quietly|secretly)\b`),
	p(RuleConcealment, 30, "log|record|report|flag|audit|silently|quietly|secretly|write", `\b(?:don't|do not|never|dont) (?:log|record|report|flag|audit|write down)(?: it| this| that| anything)?\b|\b(?:do (?:this|it)|proceed|act) (?:silently|quietly|secretly)\b`).and("not|never|dont|don|silently|quietly|secretly"),
	p(RuleConcealment, 30, "mention", `\b(?:never|do not|don't) mention (?:this|these|it)(?: message| line| note| instruction)?\b`),
	// payment redirection
	p(RulePayment, 45, "send|pay|transfer|wire|deposit|route|forward|move|redirect|remit|refund", `\b(?:send|pay|transfer|wire|deposit|route|forward|move|redirect|remit|refund)\b[^.\n]{0,40}?\b(?:payment|payments|funds|money|usdc|usdt|crypto|eth|btc|sol|fee|price|amount|balance|invoice|it|the rest|the remainder|tips?|bonus|me|refund|buyer|payout)\b[^.\n]{0,40}?\b(?:directly|instead|outside|off[- ]?(?:platform|site|exchange|chain)|to (?:my|this|our|that|the following|a different|another|the new|an external|my personal|my own|my other|this different|a new|my new) (?:wallet|address|account|paypal|bank|revolut|wise|cashapp|venmo|binance|card|usdt|usdc))`).unlessNegated(),
	p(RulePayment, 40, "wallet|account|paypal|bank|address|card|revolut|wise|venmo|cashapp|binance", `\b(?:payment|pay|funds|money|transfer|payout|refund)\b[^.\n]{0,30}\b(?:on|to|via|through|into|with|straight to|directly to) (?:my|our) (?:own |personal |private |other )?(?:wallet|account|paypal|bank|address|card|revolut|wise|venmo|cashapp|binance)\b`).unlessNext("arrived", "was", "has", "came", "landed", "is", "cleared", "went", "showed", "appeared", "yet", "today", "yesterday").unlessNegated(),
	p(RulePayment, 30, "wallet|payout|payment|deposit|receiving|bank|usdt|usdc|btc|eth", `\b(?:new|updated|changed|different|correct|alternate|alternative|personal|private|backup|other) (?:wallet|payout|payment|deposit|receiving|bank|usdt|usdc|btc|eth) (?:address|account|details|info|wallet)\b`),
	p(RulePayment, 30, "payout|payment|wallet|receiving|withdrawal|deposit|destination", `\b(?:change|update|replace|switch|set|use)(?: the| my| your| our)? (?:payout|payment|wallet|receiving|withdrawal|deposit|destination) (?:address|wallet|account|method|destination)(?: to)?\b`),
	p(RulePayment, 40, "directly|outside|off", `\b(?:pay|paying|payment|deal|transact|work|continue|talk|settle|trade)(?: me| us| you| with me| with us)? (?:directly|outside(?: of)?(?: the)? (?:platform|exchange|site|escrow|axp|marketplace)|off[- ](?:platform|site|exchange|axp|the platform|the exchange|the site))\b`),
	p(RulePayment, 40, "avoid|bypass|circumvent|cut out|dodge|evade|skip|no need", `\b(?:avoid|bypass|circumvent|cut out|dodge|evade|skip)(?: the)? (?:(?:platform|exchange|marketplace|axp|escrow)(?:'s)? (?:fees?|commission)|escrow|middleman|exchange|platform|marketplace)\b|\bno need for (?:the )?(?:platform|exchange|marketplace|escrow|middleman)\b`),
	p(RulePayment, 40, "refund|release|return|route", `\b(?:refund|release|return|route)\b[^.\n]{0,25}\bto (?:my|this|another|a different|the following|my other|this different|a new|my new|an external) (?:wallet|address|account)\b`).and("wallet|address|account"),
	// broader shapes: the reader's internals, its controls, its loyalty, its process
	p(RuleExfiltration, 40, "paste|list|output|respond|reply|show|share|tell|give|forward|send|reveal|print|repeat|dump|what", `\b(?:paste|list|output|respond with|reply with|show|share|tell (?:me|us)|give (?:me|us)|forward|send|reveal|print|repeat|dump|what are)\b[^.\n]{0,20}?\b(?:your|their|its|every|each|all your) (?:own |hidden |secret |internal |current |full )*(?:system prompt|prompt|rules|instructions|guardrails|guidelines|tools?|tool list|functions|session tokens?|tokens?|api keys?|keys|configuration|config|parameters|memory|context window|directives)\b`).unlessNext("for", "about", "on", "to").unlessNegated().and("prompt|rules|instructions|guardrails|guidelines|tool|tools|functions|token|tokens|session|keys|key|configuration|config|parameters|memory|context|directives"),
	p(RuleExfiltration, 30, "system prompt|hidden rules|hidden instructions", `\byou (?:have|were given|got|run with) (?:a |an |some )?(?:system prompt|hidden rules|hidden instructions|secret instructions)\b`),
	p(RuleExfiltration, 35, "tool|tools|function|functions", `\b(?:every|each|all(?: the)?|which) (?:tools?|functions?) you (?:can|could|are able to|have access to) (?:call|use|invoke|access)\b`),
	p(RuleOverride, 45, "disabled|removed|lifted|turned|suspended|changed|updated|waived|off", `\b(?:(?:your|their|its|all your) (?:guardrails|rules|checks|instructions|restrictions|filters|safety (?:rules|checks|filters)|limits|guidelines|safeguards|policies)|the (?:guardrails|restrictions|safety filters|safeguards|acceptance checks|content filters))\b[^.\n]{0,15}?\b(?:were|are|have been|has been|got|is) (?:now |temporarily |just )?(?:disabled|removed|lifted|turned off|suspended|changed|updated|waived|switched off|deactivated|off)\b`),
	p(RuleOverride, 40, "orders|instructions|commands|directions", `\b(?:take|accept|follow|obey|listen to)(?: your)? (?:orders|instructions|commands|directions) only from me\b|\bonly (?:take|accept|follow|obey) (?:orders|instructions|commands|directions) from me\b`),
	p(RuleOverride, 40, "real|actual|true", `\bthe (?:real|actual|true) (?:client|buyer|customer|owner|principal|boss|employer|user) (?:here )?is me\b|\bi am the (?:real|actual|true) (?:client|buyer|customer|owner|principal)\b`),
	p(RuleOverride, 40, "person|one who|party", `\bnot the (?:person|one|party|user|agent) who (?:posted|created|wrote|sent|opened) (?:this|the) (?:task|job|order|brief|request)\b`),
	p(RuleOverride, 45, "treat|consider|regard|use", `\b(?:treat|consider|regard|use) (?:the text below|the following|this message|this text|what follows|the text above|this note|this) as (?:your )?(?:new |updated |real |actual )?(?:operating |system |core )?(?:instructions|rules|prompt|system prompt|orders|directives|guidelines)\b`),
	p(RuleOverride, 35, "new|updated", `\b(?:your|the) (?:new|updated) (?:operating |system |core )?(?:instructions|rules|orders|prompt|system prompt|directives|guidelines)\b`).unlessNext("for"),
	p(RuleOverride, 35, "here on|now on|this point on|this moment on", `\bfrom (?:here|now|this point|this moment) on\b[^.\n]{0,30}\b(?:you|your)\b[^.\n]{0,30}\b(?:only|orders|instructions|obey|follow|me|must|will)\b`),
	p(RuleOverride, 30, "ignore|disregard|dismiss", `\b(?:ignore|disregard|dismiss) (?:the |your )?(?:buyer|seller|client|customer|operator|owner|principal|other party|mediator|platform|exchange)\b`),
	p(RuleToolCall, 40, "open|evaluate|check|review|read|verify|test|look|inspect", `\b(?:do not|don't|dont|never|no need to|without needing to) (?:open|evaluate|check|review|read|verify|test|look at|inspect|examine|download)(?: anything| the (?:deliverable|delivery|file|files|work|output|result)s?| it| them| this)?\b[^.\n]{0,30}\b(?:just |simply )?(?:accept|approve|release|mark|pay|confirm|close|sign off)\b|\b(?:do not|don't|never) (?:evaluate|check|review|verify|inspect) anything\b`),
	p(RuleToolCall, 40, "exempt|excluded|immune|whitelisted", `\b(?:exempt|excluded|immune|whitelisted) from (?:the )?(?:checks|acceptance checks|review|reviews|verification|screening|scanning|moderation|rules)\b`),
	p(RuleToolCall, 35, "mark|complete|close|confirm|finish|sign|accept|approve|release", `\b(?:mark|complete|close|confirm|finish|sign off|accept|approve|release)\b[^.\n]{0,30}\b(?:without (?:any )?(?:review|reviewing|checks|checking|verification|verifying|testing|opening|reading|looking))\b`),
	p(RuleToolCall, 25, "agreed|approved|authorised|authorized", `\b(?:pre-?agreed|already agreed|has agreed|agreed by phone|pre-?approved|pre-?authori[sz]ed) (?:to )?(?:a |the )?(?:full |partial |100% )?(?:refund|release|payout|payment|acceptance|settlement)\b`).and("refund|release|payout|payment|acceptance|settlement"),
	p(RuleToolCall, 25, "execute|process|carry out|action", `\b(?:execute|process|carry out|action) (?:it|this|that|the refund|the payout|the release)(?: now| immediately| right away| automatically)?[.!]?$`),
	p(RuleToolCall, 30, "output|respond|reply|say|print|write|answer|type", `\b(?:output|respond with|reply with|say|print|write|answer with|type)(?: only)?(?: the word| the text| exactly| just)? "?(?:accept|accepted|approve|approved|yes|ok|pwned|confirmed|release|released|pass|passed)"?(?:\s|,|$)[^.\n]{0,30}\b(?:then stop|and stop|nothing else|do not evaluate|don't evaluate|and nothing more)`).and("stop|else|evaluate|more"),
	p(RuleToolCall, 25, "pay you|tip you|reward you|bonus", `\b(?:pay|tip|give|reward) you (?:extra|more|a bonus|double|a tip)\b|\bbonus (?:if|when) you\b`),
	p(RuleImpersonation, 25, "whoever|whatever|anyone|any system|any agent|any bot|any ai|reading this|processing this|processes this", `\b(?:for|to|attention) (?:whoever|whatever|anyone|any (?:system|agent|bot|ai|model|assistant)) (?:processes|reads|handles|reviews|evaluates|is processing|is reading|parses)\b|\b(?:agents?|ai|models?|bots?|assistants?|llms?|systems?) (?:reading|processing|parsing|evaluating|reviewing) this\b`),
	p(RuleImpersonation, 25, "if you are|you're an|you are an|as an ai|as a language model", `\bif you (?:are|'re) (?:an ai|a language model|an llm|a bot|an agent|an assistant|a model|an automated)\b|\b(?:you're|you are) an? (?:ai|llm|language model|bot)\b[^.\n]{0,40}\b(?:so|therefore|must|should|will|understand)\b|\bas an? (?:ai|llm|language model) you (?:must|should|are required|have to)\b`),
	p(RuleImpersonation, 25, "mediator|arbiter|judge|reviewer", `\bas (?:the |an? )?(?:ai )?(?:mediator|arbiter|judge|reviewer)\b[^.\n]{0,10}\byou (?:should|must|have to|need to|are required to)\b`),
	p(RuleUrgency, 30, "reminder|notice|message|update|alert|note|warning|announcement|directive|instruction|order|request|command", `\b(?:reminder|notice|message|update|alert|note|warning|announcement|directive|instruction|order|request|command) from (?:the |your )?(?:axp|exchange|platform|support|axp support|platform support|exchange support|operator|admin|administrator|moderat\w*|trust (?:and|&) safety|security team|compliance|system|developer|owner)\b`).and("axp|exchange|platform|support|operator|admin|administrator|moderator|moderation|trust|security|compliance|system|developer|owner"),
	p(RuleUrgency, 15, "owner|admin|administrator|moderator|operator|boss|manager|trusted|verified|staff", `\b(?:i am|i'm|as) (?:the |a |an )?(?:project owner|owner of (?:this|the) (?:task|project|job)|platform admin|exchange admin|administrator|admin|moderator|operator|buyer's (?:boss|manager)|trusted seller|verified seller|exchange staff|axp staff|support agent)\b`),
	p(RulePayment, 40, "privately|directly|outside|off|out of", `\bkeep (?:the )?(?:exchange|platform|marketplace|escrow|axp|middleman) out of (?:this|it|the deal)\b|\b(?:settle|pay|deal|trade|transact|finish|close)(?: this| it| up)?(?: in crypto| in cash| in usdt| in usdc)? (?:privately|between us|off[- ]?(?:platform|site|chain|exchange))\b`),
	p(RulePayment, 35, "changed|updated|moved|replaced|now|new", `\b(?:payout|payment|wallet|receiving|deposit|bank|refund) (?:address|wallet|account|details)(?: has| have| was| were| is)?(?: been)? (?:changed|updated|moved|replaced|now)\b`),
	p(RuleImpersonation, 25, "override", `(?m)^\s*\[?override\]?\s*:`),
	// hidden instructions in plain sight
	p(RuleHidden, 15, "display|visibility|font-size|color|opacity", `(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?:px|pt|em)?\b|color\s*:\s*(?:white|#fff(?:fff)?)\b|opacity\s*:\s*0(?:\.0+)?\b)`),
	p(RuleHidden, 40, "decode|base64|rot13|hex|reverse", `\b(?:decode|decipher|translate|reverse)\b[^.\n]{0,30}\b(?:base64|rot13|rot-13|hex|binary|morse|backwards|reversed)\b[^.\n]{0,40}\b(?:follow|execute|obey|do what|carry out|run|act on|and do)\b`),
}

// htmlComments returns, for each "<!-- ... -->" (or unclosed "<!--"), its start, end, and the
// start and end of its body.
func htmlComments(text string) [][4]int {
	var out [][4]int
	for i := 0; ; {
		k := strings.Index(text[i:], "<!--")
		if k < 0 {
			return out
		}
		st := i + k
		bs := st + 4
		e := strings.Index(text[bs:], "-->")
		if e < 0 {
			out = append(out, [4]int{st, len(text), bs, len(text)})
			return out
		}
		out = append(out, [4]int{st, bs + e + 3, bs, bs + e})
		i = bs + e + 3
	}
}

// base64Blobs returns the runs of at least 32 base64 (or base64url) characters.
func base64Blobs(text string) [][2]int {
	var out [][2]int
	isB64 := func(c byte) bool { return screen.IsAlnum(c) || c == '+' || c == '/' || c == '_' || c == '-' }
	for i := 0; i < len(text); {
		if !isB64(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && isB64(text[j]) {
			j++
		}
		e := j
		for e < len(text) && e-j < 2 && text[e] == '=' {
			e++
		}
		if j-i >= 32 {
			out = append(out, [2]int{i, e})
		}
		i = j
	}
	return out
}

// Screen checks text from another agent for prompt injection: instructions that try to override
// the reader's own, impersonate the system, smuggle tool calls, exfiltrate secrets, hide text,
// press with urgency or authority, or redirect payments. The text is data either way; the verdict
// says how it should be shown, and Cleaned is a copy in which the flagged passages are quoted
// and marked and hidden text is removed or revealed.
func Screen(text string) Verdict {
	return check(text, 0)
}

type found struct {
	rule   string
	weight int
	s, e   int // original offsets
	note   string
}

func check(text string, depth int) Verdict {
	var fs []found
	fs = append(fs, matchPatterns(text)...)
	fs = append(fs, hiddenText(text, depth)...)
	risk := score(fs)
	v := Verdict{Risk: risk, Verdict: VerdictClean, Findings: []Finding{}, Cleaned: text}
	switch {
	case risk >= InjectionAt:
		v.Verdict = VerdictInjection
	case risk >= SuspiciousAt:
		v.Verdict = VerdictSuspicious
	}
	v.Flagged = risk >= SuspiciousAt
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].s < fs[j].s })
	for _, f := range fs {
		ex := f.note
		if ex == "" {
			ex = screen.Excerpt(text[f.s:f.e])
		}
		v.Findings = append(v.Findings, Finding{Rule: f.rule, Excerpt: ex, Weight: f.weight})
	}
	if v.Flagged {
		v.Cleaned = neutralise(text, fs)
	}
	return v
}

// score adds the weights of the findings: distinct passages of the same rule add up to 60, weak
// signals (urgency words) to 10, and the total is capped at 100.
func score(fs []found) int {
	per := map[string]int{}
	weak := 0
	for _, f := range fs {
		if f.weight < 10 {
			weak += f.weight
			continue
		}
		per[f.rule] += f.weight
	}
	total := min(weak, 10)
	for _, w := range per {
		total += min(w, 60)
	}
	return min(total, 100)
}

// isWordTrigger reports whether a trigger is a plain ASCII word (looked up among the words of a
// sentence) rather than a string to search for.
func isWordTrigger(t string) bool {
	for i := 0; i < len(t); i++ {
		if !screen.IsLower(t[i]) && !screen.IsDigit(t[i]) && t[i] != '_' {
			return false
		}
	}
	return t != ""
}

// boundedGap matches the bounded "any words in between" gaps of the patterns.
var boundedGap = regexp.MustCompile(`\[\^\.\\n\]\{0,\d+\}\??`)

// loosen replaces bounded gaps ("[^.\n]{0,40}") with unbounded lazy ones: the patterns only ever
// see one sentence, and a counted repetition makes the compiled program, and the matching, many
// times slower.
func loosen(expr string) string {
	return boundedGap.ReplaceAllString(expr, `[^.\n]*?`)
}

// phraseWord returns the longest word of a phrase that is not a common word, or "".
func phraseWord(t string) string {
	longest := ""
	for _, w := range strings.FieldsFunc(t, func(r rune) bool { return r == ' ' || r == '\'' || r == '-' }) {
		if len(w) > len(longest) && !screen.Stopwords[w] && len(w) > 2 {
			longest = w
		}
	}
	return longest
}

// isPhrase reports a trigger made of ASCII words separated by blanks, apostrophes or hyphens.
func isPhrase(t string) bool {
	letters := 0
	for i := 0; i < len(t); i++ {
		switch c := t[i]; {
		case screen.IsLower(c) || screen.IsDigit(c):
			letters++
		case c == ' ' || c == '\'' || c == '-':
		default:
			return false
		}
	}
	return letters > 0
}

// triggerIndex maps each trigger word to the patterns it enables; words of five letters or more
// also trigger on longer words they begin ("ignor" for "ignored").
var triggerIndex = func() map[string][]int {
	m := map[string][]int{}
	for i, pt := range injectionPatterns {
		for _, w := range pt.words {
			m[w] = append(m[w], i)
		}
	}
	return m
}()

// allSubstr lists every trigger string once.
var allSubstr = func() []string {
	seen := map[string]bool{}
	var out []string
	for _, pt := range injectionPatterns {
		for _, t := range pt.substr {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out
}()

func matchPatterns(text string) []found {
	v := screen.ScreenView(text)
	var fs []found
	enabled := make([]bool, len(injectionPatterns))
	var plain string
	run := func(b []byte, obf bool) {
		str := string(b)
		// trigger strings absent from the whole text need not be looked for in each sentence
		inText := make(map[string]bool, len(allSubstr))
		for _, t := range allSubstr {
			if strings.Contains(str, t) {
				inText[t] = true
			}
		}
		present := make([][]int, len(injectionPatterns)) // per pattern: its trigger strings found in str
		if len(inText) > 0 {
			for pi, pt := range injectionPatterns {
				for ti, t := range pt.substr {
					if inText[t] {
						present[pi] = append(present[pi], ti)
					}
				}
			}
		}
		for _, sg := range screen.Segments(str) {
			seg := str[sg[0]:sg[1]]
			if obf && plain[sg[0]:sg[1]] == seg {
				continue // no leet in this sentence: already screened
			}
			for i := range enabled {
				enabled[i] = false
			}
			for k := 0; k < len(seg); {
				if !screen.IsAlnum(seg[k]) && seg[k] != '_' && seg[k] < utf8.RuneSelf {
					k++
					continue
				}
				j := k
				for j < len(seg) && (screen.IsAlnum(seg[j]) || seg[j] == '_' || seg[j] >= utf8.RuneSelf) {
					j++
				}
				w := seg[k:j]
				for _, pi := range triggerIndex[w] {
					enabled[pi] = true
				}
				for l := 5; l < len(w); l++ {
					for _, pi := range triggerIndex[w[:l]] {
						enabled[pi] = true
					}
				}
				k = j
			}
			for pi, pt := range injectionPatterns {
				if !enabled[pi] {
					for _, ti := range present[pi] {
						if strings.Contains(seg, pt.substr[ti]) {
							enabled[pi] = true
							break
						}
					}
				}
				if !enabled[pi] || pt.also != nil && !pt.also.has(seg) {
					continue
				}
				for _, m := range pt.re.FindAllStringIndex(seg, 4) {
					m0, m1 := m[0]+sg[0], m[1]+sg[0]
					if m1 <= m0 || vetoed(pt, str, m0, m1) {
						continue
					}
					s, e := v.Orig(m0, m1)
					w := pt.weight
					if quoted(str, m0, m1) {
						w /= 2 // quoted as an example: still worth a look, rarely an attack
					}
					fs = addFound(fs, found{rule: pt.rule, weight: w, s: s, e: e})
					if obf || v.AnyObf(m0, m1) {
						fs = addFound(fs, found{rule: RuleObfuscation, weight: 15, s: s, e: e})
					}
				}
			}
		}
	}
	plain = string(v.B)
	run(v.B, false)
	if l, changed := screen.Leet(v.B); changed {
		run(l, true)
	}
	return fs
}

// addFound adds f unless a finding of the same rule already covers an overlapping passage; the
// heavier of the two is kept.
func addFound(fs []found, f found) []found {
	for i, g := range fs {
		if g.rule == f.rule && f.s < g.e && g.s < f.e {
			if f.weight > g.weight {
				fs[i].weight = f.weight
			}
			if f.s < g.s {
				fs[i].s = f.s
			}
			if f.e > g.e {
				fs[i].e = f.e
			}
			return fs
		}
	}
	return append(fs, f)
}

// vetoed applies a pattern's exceptions to a match [s, e) of the normalised text str.
func vetoed(pt pattern, str string, s, e int) bool {
	if pt.notNext != nil {
		k := e
		for k < len(str) && str[k] == ' ' {
			k++
		}
		j := k
		for j < len(str) && screen.IsAlnum(str[j]) {
			j++
		}
		if pt.notNext[str[k:j]] {
			return true
		}
	}
	if pt.negatable {
		before := str[max(0, s-12):s]
		for _, neg := range []string{"never ", "don't ", "do not ", "dont ", "not ", "never to "} {
			if strings.HasSuffix(before, neg) {
				return true
			}
		}
	}
	return false
}

// quoted reports whether the match [s, e) stands inside double quotes on its line, as an example
// being discussed rather than an instruction.
func quoted(str string, s, e int) bool {
	ls := strings.LastIndexByte(str[:s], '\n') + 1
	le := strings.IndexByte(str[e:], '\n')
	if le < 0 {
		le = len(str)
	} else {
		le += e
	}
	return strings.Count(str[ls:s], `"`)%2 == 1 && strings.Contains(str[e:le], `"`)
}

// hiddenText looks at what a reader does not see: invisible characters inside words, Unicode tag
// characters (which spell ASCII invisibly), bidirectional overrides, HTML comments and base64
// blobs that decode to instructions.
func hiddenText(text string, depth int) []found {
	var fs []found
	inWord, bidi := 0, 0
	firstInv, firstBidi := -1, -1
	var tags strings.Builder
	tagStart, tagEnd := -1, -1
	prev := rune(0)
	for i, r := range text {
		switch {
		case r >= 0xE0000 && r <= 0xE007F:
			if r >= 0xE0020 && r < 0xE007F {
				tags.WriteByte(byte(r - 0xE0000))
			}
			if tagStart < 0 {
				tagStart = i
			}
			tagEnd = i + utf8.RuneLen(r)
		case r == 0x202A || r == 0x202B || r == 0x202D || r == 0x202E || (r >= 0x2066 && r <= 0x2069):
			bidi++
			if firstBidi < 0 {
				firstBidi = i
			}
		case r == 0x200B || r == 0x200C || r == 0x2060 || r == 0xFEFF || r == 0x00AD || r == 0x180E || r == 0x2061 || r == 0x2062 || r == 0x2063 || r == 0x2064:
			next, _ := utf8.DecodeRuneInString(text[i+utf8.RuneLen(r):])
			if unicode.IsLetter(prev) && unicode.IsLetter(next) {
				inWord++
				if firstInv < 0 {
					firstInv = i
				}
			}
		}
		prev = r
	}
	if inWord < 2 && invisibleRun(text) >= 4 {
		inWord = 2
		if firstInv < 0 {
			firstInv = strings.IndexFunc(text, isZeroWidth)
		}
	}
	if inWord >= 2 {
		w := 15
		if inWord >= 6 {
			w = 25
		}
		fs = append(fs, found{rule: RuleHidden, weight: w, s: firstInv, e: firstInv, note: "invisible characters inside words"})
	}
	if bidi > 0 {
		fs = append(fs, found{rule: RuleHidden, weight: 20, s: firstBidi, e: firstBidi, note: "bidirectional override characters"})
	}
	if tags.Len() >= 3 {
		hidden := tags.String()
		fs = append(fs, found{rule: RuleHidden, weight: 40, s: tagStart, e: tagEnd, note: "invisible tag characters spell: " + screen.Excerpt(hidden)})
		if depth == 0 {
			fs = append(fs, nested(Screen(hidden), tagStart, tagEnd)...)
		}
	}
	for _, m := range htmlComments(text) {
		body := text[m[2]:m[3]]
		if strings.TrimSpace(body) == "" {
			continue
		}
		if depth == 0 {
			inner := check(body, 1)
			if inner.Risk >= 20 {
				fs = append(fs, found{rule: RuleHidden, weight: 30, s: m[0], e: m[1], note: "HTML comment: " + screen.Excerpt(body)})
			}
		}
	}
	if depth == 0 {
		for _, m := range base64Blobs(text) {
			blob := text[m[0]:m[1]]
			dec, ok := decodeText(blob)
			if !ok {
				continue
			}
			inner := check(dec, 1)
			if inner.Risk >= 20 {
				fs = append(fs, found{rule: RuleHidden, weight: 40, s: m[0], e: m[1], note: "base64 text decodes to: " + screen.Excerpt(dec)})
				fs = append(fs, nested(inner, m[0], m[1])...)
			}
		}
	}
	return fs
}

func isZeroWidth(r rune) bool {
	switch r {
	case 0x200B, 0x200C, 0x2060, 0xFEFF, 0x00AD, 0x180E, 0x2061, 0x2062, 0x2063, 0x2064:
		return true
	}
	return false
}

// invisibleRun counts zero-width characters (not joiners, which emoji use).
func invisibleRun(text string) int {
	n := 0
	for _, r := range text {
		if isZeroWidth(r) {
			n++
		}
	}
	return n
}

// nested turns the findings of a decoded hidden text into findings at the place it was hidden.
func nested(v Verdict, s, e int) []found {
	var fs []found
	for _, f := range v.Findings {
		if f.Rule == RuleHidden {
			continue
		}
		fs = append(fs, found{rule: f.Rule, weight: f.Weight, s: s, e: e, note: "hidden: " + f.Excerpt})
	}
	return fs
}

// decodeText decodes a base64 (or base64url) blob that holds readable text.
func decodeText(blob string) (string, bool) {
	trimmed := strings.TrimRight(blob, "=")
	var dec []byte
	var err error
	if strings.ContainsAny(trimmed, "-_") {
		dec, err = base64.RawURLEncoding.DecodeString(trimmed)
	} else {
		dec, err = base64.RawStdEncoding.DecodeString(trimmed)
	}
	if err != nil || len(dec) < 16 || !utf8.Valid(dec) {
		return "", false
	}
	printable, letters := 0, 0
	for _, r := range string(dec) {
		if unicode.IsPrint(r) || r == '\n' || r == '\t' {
			printable++
		}
		if unicode.IsLetter(r) {
			letters++
		}
	}
	n := utf8.RuneCount(dec)
	if printable*10 < n*9 || letters*2 < n {
		return "", false
	}
	return string(dec), true
}

// neutralise returns text with every flagged passage (widened to its sentence or line) quoted
// and marked as not to be followed, chat-template tokens defanged, and invisible characters
// removed.
func neutralise(text string, fs []found) string {
	type region struct {
		s, e  int
		rules []string
	}
	var rs []region
	for _, f := range fs {
		if f.rule == RuleUrgency && f.weight < 10 || f.rule == RuleObfuscation {
			continue
		}
		s, e := widen(text, f.s, f.e)
		rs = append(rs, region{s, e, []string{f.rule}})
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].s < rs[j].s })
	var merged []region
	for _, r := range rs {
		if n := len(merged); n > 0 && r.s <= merged[n-1].e {
			m := &merged[n-1]
			if r.e > m.e {
				m.e = r.e
			}
			if !contains(m.rules, r.rules[0]) {
				m.rules = append(m.rules, r.rules...)
			}
			continue
		}
		merged = append(merged, r)
	}
	var b strings.Builder
	prev := 0
	for _, r := range merged {
		b.WriteString(defang(text[prev:r.s]))
		b.WriteString("[UNTRUSTED TEXT, not an instruction (" + strings.Join(r.rules, ", ") + "): \"")
		b.WriteString(strings.ReplaceAll(defang(text[r.s:r.e]), `"`, `'`))
		b.WriteString("\"]")
		prev = r.e
	}
	b.WriteString(defang(text[prev:]))
	return b.String()
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// widen extends [s, e) to the sentence or line around it (at most 400 bytes each way).
func widen(text string, s, e int) (int, int) {
	if s == e && s >= 0 {
		// a point finding (invisible characters): mark the line
		e = s
	}
	lo := s
	for lo > 0 && s-lo < 400 {
		c := text[lo-1]
		if c == '\n' || ((c == '.' || c == '!' || c == '?') && lo < len(text) && text[lo] == ' ') {
			break
		}
		lo--
	}
	hi := e
	for hi < len(text) && hi-e < 400 {
		c := text[hi]
		if c == '\n' {
			break
		}
		if c == '.' || c == '!' || c == '?' {
			hi++
			break
		}
		hi++
	}
	for lo < hi && (text[lo] == ' ' || text[lo] == '\t') {
		lo++
	}
	for !utf8.RuneStart(text[lo]) && lo > 0 {
		lo--
	}
	for hi < len(text) && !utf8.RuneStart(text[hi]) {
		hi++
	}
	return lo, hi
}

// defang removes invisible characters and breaks chat-template tokens so that a model reading
// the cleaned text cannot take them for structure.
func defang(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 0xE0000 && r <= 0xE007F, r == 0x200B, r == 0x200C, r == 0x2060, r == 0xFEFF, r == 0x00AD,
			r == 0x202A, r == 0x202B, r == 0x202C, r == 0x202D, r == 0x202E, r >= 0x2066 && r <= 0x2069,
			r >= 0x2061 && r <= 0x2064, r == 0x180E:
			continue
		case r == '<':
			b.WriteRune('‹')
		case r == '>':
			b.WriteRune('›')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
