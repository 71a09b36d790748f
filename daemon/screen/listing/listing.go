package listing

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"sort"
	"strings"

	"github.com/axp-exchange/axp/daemon/screen"
)

// Listing policy categories.
const (
	PolicyFraud        = "fraud"
	PolicyMalware      = "malware"
	PolicyFakeReviews  = "fake_reviews"
	PolicyAdult        = "adult"
	PolicyGambling     = "gambling"
	PolicySpam         = "spam"
	PolicyPersonalData = "personal_data_scraping"
	PolicyImpersonate  = "impersonation"
	PolicyLiveAccess   = "live_access"
)

// Policy is the listing-policy rule a task brief breaks.
type Policy struct {
	Category string `json:"category"` // fraud, malware, fake_reviews, adult, gambling, spam, personal_data_scraping, impersonation, live_access
	Reason   string `json:"reason"`
}

// policyText explains each category to the buyer.
var policyText = map[string]string{
	PolicyFraud:        "fraud (forged documents, phishing, stolen payment data, scams, defeating identity checks) is not allowed",
	PolicyMalware:      "malware, breaking into systems or accounts, and attacks such as DDoS are not allowed",
	PolicyFakeReviews:  "fake or manipulated reviews and ratings are not allowed",
	PolicyAdult:        "sexually explicit content is not allowed",
	PolicyGambling:     "gambling services and their promotion are not allowed",
	PolicySpam:         "unsolicited bulk messaging, fake engagement and account farming are not allowed",
	PolicyPersonalData: "collecting personal data about people (contact details, addresses, whereabouts) is not allowed",
	PolicyImpersonate:  "impersonating a real person, company or authority is not allowed",
	PolicyLiveAccess:   "asking for live credentials or account access, or for real bookings and purchases, is not allowed: the exchange passes work, never access, and reservations are dry runs only (a plan or a held quote, never confirmed or paid)",
}

type policyRule struct {
	category string
	re       *regexp.Regexp
	prefixes []string // every match starts with one of these; nil when that is not known
	// anyOf, for a rule without prefixes, holds the literals one of which starts every match
	// when there are too many to try sentence by sentence: a text holding none of them cannot
	// match, and any other is matched whole as before. nil when they are not known.
	anyOf []string
	// lits indexes prefixes, or else anyOf, by their first two bytes.
	lits *literals
	// unless, when it matches the sentence of the match, makes the brief acceptable: it asks to
	// detect, prevent, study or teach about the thing rather than to do it.
	unless *regexp.Regexp
}

const (
	defensive = `detect|detection|detector|prevent|prevention|protect|protection|defend(?:ing|s)?\b|defen[cs]e|(?:protect\w*|defend\w*|harden\w*|secur\w*|resilien\w*) against|against (?:ddos|attacks?|malware|ransomware|phishing|fraud|spam|scams?)|harden|awareness|educat|classif|filter|spot(?:ting)?\b|identify|recogni|analy[sz]|research|study|studies|statistic|history of|essay|article (?:about|on)|regulat|complian|legal|moderat|remov|clean ?up|block|flag|screen(?:ing)?\b|audit|investigat|forensic|incident|report(?:ing)? (?:on|about)|explain|summar|warn|policy|policies|safety|fight|combat|counter|mitigat|recover|help(?:ing)? victims|victim support|ban(?:ned|s)?\b`
)

func pol(category, expr, unless string) policyRule {
	r := policyRule{category: category, re: regexp.MustCompile(expr), prefixes: leadingLiterals(expr, 64)}
	r.lits = indexLiterals(r.prefixes)
	if r.prefixes == nil {
		r.anyOf = leadingLiterals(expr, 1024)
		r.lits = indexLiterals(r.anyOf)
	}
	if unless != "" {
		r.unless = regexp.MustCompile(`\b(?:` + unless + `)`)
	}
	return r
}

var policyRules = []policyRule{
	// sexual content involving minors: no exception
	pol(PolicyAdult, `\b(?:child|children|kid|kids|minor|minors|underage|under-age|teen|teens|teenage|schoolgirls?|schoolboys?|loli|preteens?|13 ?yo|14 ?yo|15 ?yo)\b[^.\n]{0,40}\b(?:sexual|sexy|nude|nudes|naked|erotic|porn|explicit|lingerie|seductive)\b|\b(?:sexual|sexy|nude|naked|erotic|porn|explicit)\b[^.\n]{0,40}\b(?:child|children|kid|kids|minor|minors|underage|teen|teens|schoolgirls?|preteens?)\b`, `sex education|safeguard|child protection|report(?:ing)? abuse|detect|prevent|moderat|classif|policy|awareness`),
	pol(PolicyAdult, `\b(?:porn|porno|pornographic|pornography|xxx|nsfw|hentai|erotica|erotic (?:story|stories|content|fiction|roleplay|role-play|images?|photos?|videos?|chat|novel)|explicit (?:sexual|sex|adult)|sexually explicit|sex (?:scenes?|story|stories|chat|videos?|cam|tape)|nudes|nude (?:photos?|images?|pics?|pictures?|art of)|naked (?:photos?|pictures?|images?|pics?)|undress(?:ing)?\b[^.\n]{0,30}\b(?:app|ai|photos?|pictures?|images?|pics?|her|him|them|classmate|girl|woman|women|coworker)|remove (?:the )?clothes (?:from|in|on)|deepnudes?|onlyfans (?:content|captions|chatter|posts|messages|dms|scripts?)|sexting|camgirls?|cam (?:model|girl|site)s?|escort (?:ads?|service|listing|site)s?|adult (?:content|site|website|videos?|film|movies|story|stories|chat|entertainment|toys?|webcam|industry))\b`, defensive+`|sex education|sexual health|medical|anatomy|parental control|age verification`),
	// malware and attacks
	pol(PolicyMalware, `\b(?:ransomware|keyloggers?|key loggers?|remote access trojans?|botnets?|crypters?|fud (?:crypter|payload|malware)|info ?stealers?|password stealers?|token (?:grabber|logger|stealer)s?|cookie stealers?|rootkits?|bootkits?|spyware|stalkerware|cryptojack(?:er|ing)|hidden (?:crypto ?)?miners?|trojans?|computer virus(?:es)?|self[- ]replicating (?:code|program|malware)|backdoors?|reverse shells?|web ?shells?|c2 (?:server|framework|infrastructure)|command[- ]and[- ]control|exploit kits?|zero[- ]day exploits?|0[- ]?days?|ddos(?:ing)?|dos attacks?|booters?|stressers?|credential harvest(?:er|ing)|wallet drainers?)\b`, defensive+`|yara|sigma rule|signature|anti-?virus|endpoint security|how (?:does|do) [^.]{0,30} work|history`),
	pol(PolicyMalware, `\b(?:write|create|build|code|develop|make|generate|craft|design|obfuscate|spread|deploy|distribute|program)\b[^.\n]{0,30}\b(?:malware|virus|worm|malicious (?:code|script|payload|macro|extension|app|software|program|dll|apk))\b`, defensive+`|yara|signature`),
	pol(PolicyMalware, `\b(?:bypass|evade|disable|kill|avoid|get past|slip past)\b[^.\n]{0,20}\b(?:antivirus|anti-virus|edr|windows defender|defender|amsi|smartscreen|av detection|malware detection|virus ?total)\b`, `improve detection|detection rules?|test(?:ing)? our (?:own )?|research|explain|how to (?:configure|enable|fix)|troubleshoot|false positive|whitelist|allowlist|exclusion for (?:our|my)`),
	pol(PolicyMalware, `\b(?:hack|hacking|break|breaking|get|getting) into\b[^.\n]{0,30}\b(?:account|accounts|email|inbox|phone|server|website|site|network|instagram|facebook|wifi|wi-fi|icloud|someone|my (?:ex|wife|husband|girlfriend|boyfriend|partner|boss))\b`, `my own (?:account|server|site|network)|locked out of my|recover my|forgot (?:my )?password|authori[sz]ed penetration`),
	pol(PolicyMalware, `\b(?:brute[- ]?forc(?:e|ing)|crack(?:ing)?)\b[^.\n]{0,20}\b(?:passwords?|logins?|accounts?|hashes|wifi|wi-fi|wpa2?|2fa|someone)\b`, `my own|(?:i|we) (?:forgot|lost)|recover (?:my|our)|defen|detect|prevent|audit our|policy|strength`),
	// fraud
	pol(PolicyFraud, `\bphishing (?:page|pages|site|sites|website|websites|email|emails|kit|kits|campaign|campaigns|link|links|template|templates|sms|texts?|landing)\b`, defensive+`|simulation|simulated|security training|employees?|staff|our (?:team|company|users)`),
	pol(PolicyFraud, `\b(?:fake|forged?|forging|counterfeit|fraudulent|falsified|falsify|doctored|photoshopped?)\b[^.\n]{0,20}\b(?:invoices?|receipts?|ids?|id cards?|passports?|driver'?s? licen[cs]es?|bank statements?|pay ?stubs?|payslips?|paychecks?|diplomas?|degrees?|certificates?|documents?|utility bills?|tax returns?|w-?2s?|contracts?|signatures?|checks|cheques|identity|identities|kyc|proof of (?:address|income|funds|payment)|reference letters?|medical (?:notes?|certificates?)|doctor'?s notes?|transcripts?|screenshots? of (?:a )?(?:payment|transfer|bank)|payment (?:proof|confirmations?)|transaction receipts?)\b`, defensive+`|props? for (?:a|my) (?:film|movie|play|theatre|theater)|novel|sample data|template for (?:our|my) own`),
	pol(PolicyFraud, `\b(?:photoshop(?:ped)?|forge|fake|falsify|doctor|fabricate|counterfeit)\b[^.\n]{0,30}\b(?:payment (?:confirmation|proof)s?|bank statements?|receipts?|invoices?|pay ?stubs?|payslips?|screenshots? of (?:a )?(?:payment|transfer|transaction)|transfer confirmations?|transaction (?:receipts?|screenshots?)|id cards?|passports?|driver'?s licen[cs]es?|diplomas?)\b`, defensive+`|props? for (?:a|my) (?:film|movie|play)|novel|specimen|sample data|template for (?:our|my) own`),
	pol(PolicyFraud, `\b(?:carding|card dumps|cc dumps|fullz|cvv (?:shop|dumps|list)|bank logs|cash ?out (?:stolen|cards|logs)|money mul(?:e|es|ing)|launder(?:ing)?|ponzi|pyramid scheme|pump[- ](?:and|&|n)[- ]dump|rug ?pull|exit scam|drainer (?:script|kit|contract)|sim ?swap(?:ping)?|account takeovers?|credential stuffing|chargeback (?:fraud|scam)|refund (?:fraud|scam)|advance[- ]fee|419 scam|romance scam|pig butchering|scam (?:script|page|site|website|email|call|victims?|people|someone|them|customers)|fake (?:giveaway|airdrop|investment|charity|crowdfunding))\b`, defensive+`|aml|anti-money`),
	pol(PolicyFraud, `\b(?:steal|stealing|harvest|harvesting|grab|grabbing|phish|phishing for)\b[^.\n]{0,30}\b(?:credentials|passwords|logins|credit cards?|card (?:numbers|details)|bank (?:details|accounts|logins)|seed phrases?|private keys?|crypto|funds|accounts?|identit(?:y|ies))\b`, defensive),
	pol(PolicyFraud, `\b(?:bypass|circumvent|get around|defeat|fool|trick|spoof|beat)\b[^.\n]{0,20}\b(?:kyc|identity verification|id verification|aml|anti[- ]money laundering|fraud detection|2fa|two[- ]factor|otp|liveness checks?|selfie verification|age verification)\b`, `test(?:ing)? our (?:own )?|audit|pentest|penetration test|research|detect|prevent|explain how attackers|harden`),
	pol(PolicyFraud, `\b(?:trick|deceive|con|scam|defraud|mislead|manipulate)\b[^.\n]{0,30}\b(?:people|users|customers|victims|elderly|seniors|investors|someone|them|buyers|donors) (?:into|to (?:send|pay|give|invest|transfer|reveal|share))\b`, defensive),
	// impersonation
	pol(PolicyImpersonate, `\b(?:impersonat(?:e|es|ing|ion)|pose as|posing as|pretend(?:ing)? to be|pass (?:myself |yourself |it |ourselves )?off as|masquerad(?:e|ing) as)\b[^.\n]{0,40}\b(?:bank|banks|irs|hmrc|police|fbi|government|official|officials|ceo|cfo|boss|manager|support|customer service|microsoft|apple|google|amazon|paypal|coinbase|binance|metamask|celebrit(?:y|ies)|famous|real person|someone|doctor|lawyer|attorney|officer|agent|company|brand|him|her|them|my (?:ex|boss|colleague|friend|teacher)|elon|trump|biden|influencer|journalist|recruiter|the (?:owner|founder))\b`, `detect|training|awareness|research|parody|satire|in the style of|fan ?fiction|for (?:a|my) (?:play|novel|story|film|movie|game|screenplay)|security test|phishing simulation`),
	pol(PolicyImpersonate, `\b(?:deep ?fakes?|voice clon(?:e|es|ing)|clone (?:the |his |her |their |a |my boss'?s? )?voice|face ?swap(?:ping)?)\b`, defensive+`|my own voice|consent|with permission|of myself|for myself`),
	pol(PolicyImpersonate, `\b(?:fake|fraudulent|cloned|copycat|spoofed?|look-?alike|counterfeit) (?:(?:instagram|facebook|twitter|x|tiktok|linkedin|telegram|whatsapp|dating|social media|youtube|google|paypal|bank|amazon|tinder)\s+)?(?:profiles?|accounts?|persona|personas|websites?|sites?|login pages?|pages?|emails?|domains?|letters?|letterheads?|identit(?:y|ies)|social media accounts?|linkedin|dating profiles?|store|shop)\b[^.\n]{0,40}\b(?:of|for|from|as|impersonating|pretending|mimicking|that looks? like|looking like|copying|in the name of)\b`, defensive+`|takedown|report`),
	pol(PolicyImpersonate, `\b(?:write|send|draft|create|compose|sign)\b[^.\n]{0,40}\b(?:as if (?:it(?:'s| is| was| were) )?(?:from|by|written by|sent by)|in the name of|signed (?:as|by)|pretending to be from|appearing to come from|that looks like it(?:'s| is) from)\b[^.\n]{0,30}\b(?:the |my |a |our |his |her )?(?:bank|irs|hmrc|police|government|ceo|cfo|boss|manager|official|microsoft|apple|google|amazon|paypal|university|court|lawyer|attorney|landlord|doctor|hospital|school|teacher|employer|tax office|embassy|president|celebrity)\b`, `parody|satire|novel|story|film|screenplay|training|awareness`),
	pol(PolicyImpersonate, `\b(?:catfish(?:ing)?|spoof(?:ed|ing)? (?:caller id|emails?|sender|phone numbers?|sms|texts?|numbers?)|caller id spoofing)\b`, defensive+`|spf|dkim|dmarc`),
	// personal data
	pol(PolicyPersonalData, `\b(?:scrape|scraping|scraper|harvest|harvesting|crawl|crawling|extract|extracting|collect|collecting|compile|compiling|gather|gathering|mine|mining|pull|pulling|find|finding|get|build|dump)\b[^.\n]{0,40}\b(?:emails?|e-mails?|email addresses|phone numbers?|mobile numbers?|cell numbers?|contact (?:details|info|information|data)|home addresses|addresses|personal (?:data|details|info|information)|social security numbers|ssns?|dates? of birth|birthdays|profiles|names and (?:emails|phones|numbers|addresses)|whatsapp numbers)\b[^.\n]{0,50}\b(?:of|from|for|on|across)\b[^.\n]{0,40}\b(?:linkedin|facebook|instagram|twitter|tiktok|reddit|discord|telegram|users|people|members|profiles|individuals|employees|customers|residents|followers|students|patients|everyone|anyone|this (?:person|guy|girl|woman|man)|my ex|ceos|founders|owners|doctors|lawyers|realtors|agents|voters|donors|attendees|subscribers of|group members|a list of names|accounts)\b`, `anonymi[sz]|pseudonymi[sz]|redact|remove personal|delete personal|gdpr|ccpa|privacy (?:policy|compliance|audit)|my own (?:customers|contacts|data|crm|inbox|mailbox|files|spreadsheet|database)|from my (?:inbox|crm|mailbox|spreadsheet|database|own|export|files)|our (?:crm|database|own)|opt-?in|consent|pii detection|detect|mask|de-?identif|synthetic|dummy|fake data|test data|validate|deduplicate|clean up`),
	pol(PolicyPersonalData, `\b(?:dox|doxx|doxing|doxxing|doxed|doxxed)\b`, `detect|prevent|protect|awareness|report`),
	pol(PolicyPersonalData, `\b(?:find|locate|track|trace|uncover|look up|lookup|identify|unmask|figure out|discover)\b[^.\n]{0,30}\b(?:home address|where (?:he|she|they) (?:lives?|works?|is)|real name|real identity|identity|phone number|current location|location|whereabouts|ip address|workplace)\b[^.\n]{0,30}\b(?:of|for|behind)\b[^.\n]{0,30}\b(?:this|that|a|an|my|the|someone|person|guy|girl|woman|man|user|account|ex|reviewer|anonymous|twitter|instagram|reddit|tiktok)\b`, `my own|our own|lost (?:phone|device)|stolen (?:phone|laptop|device)|my (?:phone|laptop|device|package|parcel|order|shipment)|geocod|business|company|store|restaurant|office|ip address of (?:my|our) (?:server|router)|our (?:vans|trucks|fleet|vehicles|drivers|deliveries|packages|shipments|assets|devices)|vans|fleet|vehicles|trucks|delivery`),
	pol(PolicyPersonalData, `\b(?:track|trace|locate|find|monitor|spy on|follow|read)\b (?:my |the |this |a )?(?:ex|ex-wife|ex-husband|ex-girlfriend|ex-boyfriend|wife|husband|girlfriend|boyfriend|partner|spouse|neighbou?r|coworker|colleague|boss|someone|person|him|her|daughter|son|teenager)(?:'s|s')? (?:location|whereabouts|phone|movements|messages|texts|chats|address|car|browsing|calls)\b`, `prevent|protect|detect|awareness|victims?|support|with (?:her|his|their) consent|family sharing|parental`),
	pol(PolicyPersonalData, `\b(?:people search|background checks? on|stalk|stalking|spy on|secretly (?:track|monitor|record)|monitor (?:my )?(?:wife|husband|girlfriend|boyfriend|partner|ex|spouse)|monitor someone'?s? (?:phone|messages|location|chats)|read (?:my )?(?:wife|husband|girlfriend|boyfriend|partner|spouse)'?s? (?:messages|texts|chats|whatsapp))\b`, `prevent|protect|detect|awareness|victims?|support`),
	pol(PolicyPersonalData, `\b(?:database|list|spreadsheet|csv|dataset|leads? list) of\b[^.\n]{0,40}\b(?:people|individuals|persons|users|residents|voters|patients|homeowners|employees|women|men|students|members|customers|children|kids|teachers|staff|girls|boys)\b[^.\n]{0,40}\b(?:with|including|and their)\b[^.\n]{0,30}\b(?:emails?|phones?|phone numbers|addresses|dates of birth|ssns?|salaries|ages)\b`, `anonymi[sz]|synthetic|dummy|fake|test data|aggregate|consent|opt-?in|our own|my own|gdpr`),
	// fake reviews
	pol(PolicyFakeReviews, `\bfake (?:(?:5|five|1|one)[- ]?stars? |positive |negative |glowing |customer |google |amazon |yelp |trustpilot |app store )*(?:reviews?|ratings?|testimonials?|endorsements?|feedback|comments|upvotes|likes)\b`, defensive+`|spot fake|identify fake|detect fake`),
	pol(PolicyFakeReviews, `\b(?:\d+|dozens of|hundreds of|many|multiple|bulk|a batch of|several|a bunch of|lots of|some)\s+(?:(?:fake|genuine[- ]looking|authentic[- ]looking|realistic|human[- ]sounding|positive|glowing|5[- ]?stars?|five[- ]?stars?|1[- ]?stars?|one[- ]?stars?|negative|verified[- ]buyer|customer)\s+)+(?:(?:amazon|google|yelp|trustpilot|tripadvisor|app store|play store|g2|capterra|etsy|airbnb|booking|facebook|steam)\s+)?(?:reviews?|ratings?|testimonials?)\b[^.\n]{0,60}`, `summar|analy[sz]|respond|reply|replies|answer|classif|sentiment|categori|translate|aggregate|moderate|read through|go through|review of (?:the|our) reviews|extract|scrape|collect (?:our|my)|real customer|our customers (?:left|wrote)|existing reviews|from our (?:customers|shop|store)`),
	pol(PolicyFakeReviews, `\b(?:reviews?|testimonials?|ratings?)\b[^.\n]{0,30}\b(?:posing as|pretending to be|as if (?:written |left |posted )?(?:by|from)|written as|in the voice of|under the names? of|from the perspective of) (?:different |multiple |real |verified |satisfied |happy )?(?:customers|buyers|users|people|guests|patients|clients|reviewers|purchasers)\b`, defensive),
	pol(PolicyFakeReviews, `\b(?:reviews?|testimonials?|ratings?)\b[^.\n]{0,30}\b(?:with|under|using|signed with|from) (?:different|fake|made-up|invented|various|random|multiple) (?:names|identities|accounts|personas|profiles|reviewer names)\b`, defensive),
	pol(PolicyFakeReviews, `\b(?:post|write|leave|publish|submit|put)\b[^.\n]{0,30}\breviews?\b[^.\n]{0,40}\b(?:from|using|with|across|on) (?:multiple|different|many|several|various|fake|sock ?puppet|alt(?:ernate)?|burner|throwaway|new) (?:accounts|profiles|identities|names|emails)\b`, defensive),
	pol(PolicyFakeReviews, `\b(?:astroturf(?:ing)?|sock ?puppets?|review (?:bombing|bomb|farm|farms|manipulation|swaps?|exchange)|buy(?:ing)? (?:amazon |google |yelp |trustpilot |app store )?reviews|paid reviews|incentivi[sz]ed reviews|boost (?:my|our) (?:ratings|rating|reviews) (?:with|using))\b`, defensive),
	pol(PolicyFakeReviews, `\b(?:negative|bad|1[- ]?star|one[- ]?star|low) (?:reviews?|ratings?)\b[^.\n]{0,30}\b(?:for|about|on|of|to) (?:my |our |a |the )?(?:competitors?|rivals?|competing|competition)\b`, defensive),
	pol(PolicyFakeReviews, `\b(?:upvote|like|vote|rating) manipulation\b`, defensive),
	// spam
	pol(PolicySpam, `\b(?:send|blast|mass[- ]send|push|deliver|fire off|shoot)\b[^.\n]{0,30}\b(?:\d{1,3}(?:,\d{3})+|\d{3,}|\d+k|thousands of|millions of|hundreds of|tens of thousands of|bulk|mass|unsolicited|cold)\b[^.\n]{0,20}\b(?:emails?|e-mails|sms|texts|messages|dms|direct messages|whatsapp messages|comments|invites|friend requests|connection requests)\b`, `opt-?in|opted in|subscribers? (?:who|that)|consent|newsletter|our (?:customers|users|members|subscribers)|my (?:customers|subscribers|members|list of subscribers)|transactional|double opt|gdpr|can-spam|deliverability test|load test|test (?:environment|server)|staging`),
	pol(PolicySpam, `\b(?:send|blast|email|message|dm|text)\b[^.\n]{0,30}\b(?:emails?|messages|sms|texts|dms)\b[^.\n]{0,20}\bto (?:\d{1,3}(?:,\d{3})+|\d{3,}|\d+k|thousands of|millions of|hundreds of|random|scraped|purchased|bought)\b`, `opt-?in|opted in|consent|our (?:customers|users|members|subscribers)|my (?:customers|subscribers|members)|transactional|newsletter subscribers`),
	pol(PolicySpam, `\b(?:bulk|mass)[- ](?:email(?:ing|er|s)?|sms|dm(?:s|ing)?|messag(?:e|es|ing)|mail(?:ing|er|ers)?|text(?:ing|s)?|comment(?:ing|s)?|whatsapp|telegram|invites?)\b`, defensive+`|opt-?in|consent|our (?:customers|subscribers|members)|validation|verifier|verify|newsletter`),
	pol(PolicySpam, `\bspam(?:ming|bot|bots|mer|mers)?\b`, defensive+`|anti-?spam|spam (?:filter|folder|score|check|test|trap|rate)|not spam|land in spam|going to spam|ends? up in spam|avoid spam|deliverability`),
	pol(PolicySpam, `\b(?:email|phone|contact|sms|lead|leads) lists?\b[^.\n]{0,20}\b(?:purchased|bought|scraped|harvested|leaked)\b|\b(?:purchased|bought|scraped|harvested|leaked) (?:(?:email|phone|contact|lead|sms)(?: (?:lists?|databases?|leads|addresses|numbers))?|leads|lists?|contacts)\b`, defensive),
	pol(PolicySpam, `\b(?:fake|bot|purchased|bought) (?:followers|likes|subscribers|views|upvotes|retweets|engagement|streams|plays|installs|downloads)\b|\bbuy(?:ing)? (?:[\d,]+k? )?(?:(?:instagram|tiktok|twitter|youtube|spotify|facebook|twitch|telegram) )?(?:followers|likes|subscribers|views|upvotes|retweets|engagement|streams|installs|members)\b|\b(?:follower|like|view|engagement|upvote|stream) bots?\b`, defensive),
	pol(PolicySpam, `\b(?:comment|forum|seo|link|backlink|guestbook|blog comment|social) spam\b|\b(?:auto[- ]?post|autopost|cross[- ]?post|mass[- ]?post)\b[^.\n]{0,30}\b(?:hundreds|thousands|\d{2,}) (?:of )?(?:(?:facebook|telegram|whatsapp|reddit|discord|linkedin) )?(?:groups|forums|subreddits|channels|pages|communities|servers)\b`, defensive),
	pol(PolicySpam, `\b(?:create|register|make|generate|set up|open)\b[^.\n]{0,20}\b(?:\d{2,}|hundreds of|thousands of|dozens of|bulk|mass|many|multiple) (?:fake |bot |throwaway |burner |pva |phone[- ]verified )?(?:accounts|email accounts|gmail accounts|profiles|instagram accounts|twitter accounts|tiktok accounts|reddit accounts)\b`, `test accounts for (?:our|my)|for (?:our|my) (?:qa|testing|staging)|test environment|sandbox|employees|team members|students|onboard`),
	// live access: credentials handed over, real bookings and purchases (docs/decisions.md,
	// "Dry-run reservations only")
	pol(PolicyLiveAccess, `\b(?:give|send|share|provide|hand over|hand me|tell me|pass me|email me|dm me|i need|we need|need your|want your)\b[^.\n]{0,30}\b(?:passwords?|credentials|login details|log-?in info(?:rmation)?|logins?|api keys?|private keys?|ssh keys?|access keys?|secret keys?|root access|admin access|2fa codes?|otp codes?|one-time codes?|seed phrases?|recovery phrases?)\b`,
		`reset|policy|policies|manager|rotat|generat|strength|hash|vault|template|placeholder|dummy|fake|sample|test (?:account|user|credentials)|sandbox|how (?:to|do)|explain|best practice|securely stor|audit|detect|prevent|phishing simulation|environment variables?|form|field|page|screen|ui\b|flow`),
	pol(PolicyLiveAccess, `\b(?:book|reserve|purchase|buy|pay for|order|confirm)\b (?:me |us |for me |for us )?(?:a |an |the |two |three |four |\d+ |my |our )?(?:[a-z\-]+ ){0,3}(?:flights?|plane tickets?|hotels?|hotel rooms?|rooms?|airbnbs?|rental cars?|car rentals?|train tickets?|concert tickets?|tickets?|tables?|restaurant reservations?|reservations?|appointments?|tours?|cruises?|seats?)\b`,
		`dry[- ]run|don'?t (?:actually )?(?:book|buy|pay|purchase|confirm)|do not (?:actually )?(?:book|buy|pay|purchase|confirm)|without (?:booking|paying|purchasing|buying|confirming)|no (?:real )?(?:booking|purchase|payment)|mock|simulat|hypothetical|test mode|sandbox|(?:booking|reservation|ticketing|checkout) (?:system|app|page|form|website|site|flow|engine|api|widget|software|module|bot|tool)|\b(?:a|the|this|that|my|your|his|her) book\b|essay|article|story|novel|script|how to|explain|tips`),
	// gambling
	pol(PolicyGambling, `\b(?:online casinos?|casinos?|sportsbooks?|betting (?:site|sites|tips|app|apps|platform|odds|strategy|strategies|bot|system|affiliate|picks|slips?|syndicate|exchange|company|brand|tipster)|(?:place|places|placing|make|makes|making|automate|automates|automating) (?:bets|wagers)|slot (?:machines?|games?|sites?)|gambling (?:site|sites|app|apps|platform|affiliate|promotion|marketing|ads?|bot|business|website|landing|brand|operator|content)|roulette|blackjack (?:bot|strategy|site|cheat)|bookmakers?|bookies|crash (?:game|gambling)|real[- ]money (?:games?|poker|slots|betting|casino)|poker (?:bot|site|room|app)s?|bet365|1xbet|betway|draftkings|fanduel|parlays?|sweepstakes casino|i-?gaming|sports betting|online betting|online gambling|betting)\b`, `addiction|problem gambling|gambling problem|responsible gambling|harm|recovery|self-exclusion|research|history|regulat|law\b|laws|legal (?:analysis|research|overview)|essay|academic|study|studies|statistic|probability|math(?:s|ematics)?\b|expected value|game theory|film|movie|novel|casino royale|hotel|tourism|architecture|helpline|support group|quit|stop gambling|ban(?:ned|s)?\b|block|blocker|classif|detect|moderat|filter|policy|compliance|summar|legali[sz]|argument|debate|pros and cons`),
}

// Listing checks a task brief (type, description, params as text) against the listing policy; nil
// means allowed. It looks for a request to do the forbidden thing, not for the topic: "detect
// phishing emails", "an essay on gambling addiction" and "write a review of my product" are
// allowed; "a phishing page" and "write 50 fake 5-star reviews" are not.
//
// Judgement calls, so that buyers and the operator know where the line is:
//   - gambling: promoting or running gambling is rejected, including "casino marketing copy",
//     betting tips and betting bots; research, regulation, history, addiction and probability
//     lessons are allowed.
//   - adult: sexually explicit material is rejected; sex education, sexual health, anatomy and
//     romance without explicit content are allowed. Anything sexual involving minors is rejected
//     with no exception.
//   - malware and fraud: building or running the thing is rejected; detecting, analysing,
//     explaining and defending against it is allowed (a brief that only claims to be a
//     penetration test is not enough for malware).
//   - personal data: collecting contact details, addresses or whereabouts of people is
//     rejected, including lead lists scraped from social networks; working on one's own
//     customer data, anonymising and synthetic data are allowed.
//   - fake reviews: reviews or testimonials written as if by customers are rejected; honest
//     reviews, summaries of and replies to real reviews are allowed.
//
// The operator can overturn any rejection; the rules err on the side of rejecting a borderline
// brief with a clear reason.
func Listing(typ, description string, params map[string]any) *Policy {
	var b strings.Builder
	b.WriteString(strings.ReplaceAll(typ, "_", " "))
	b.WriteString(".\n")
	b.WriteString(description)
	b.WriteString("\n")
	flatten(&b, params)
	text := normalForPolicy(b.String())
	segs := screen.Segments(text)
	for _, r := range policyRules {
		for _, m := range r.find(text, segs) {
			sentence := sentenceAround(text, m[0], m[1])
			if r.unless != nil && r.unless.MatchString(sentence) {
				continue
			}
			return &Policy{Category: r.category, Reason: fmt.Sprintf("%s (matched %q)", policyText[r.category], screen.Excerpt(text[m[0]:m[1]]))}
		}
	}
	return nil
}

// find returns the matches of r in text, trying the expression only on the sentences that hold
// one of its leading literals.
func (r policyRule) find(text string, segs [][2]int) [][]int {
	if r.prefixes == nil {
		if r.anyOf != nil && !r.lits.in(text) {
			return nil
		}
		return r.re.FindAllStringIndex(text, 8)
	}
	var out [][]int
	for _, sg := range segs {
		seg := text[sg[0]:sg[1]]
		if !r.lits.in(seg) {
			continue
		}
		for _, m := range r.re.FindAllStringIndex(seg, 8) {
			out = append(out, []int{m[0] + sg[0], m[1] + sg[0]})
		}
	}
	return out
}

// literals holds strings of two bytes or more by their first two bytes.
type literals struct {
	first [256]bool // a literal starts with this byte
	by    map[uint32][]string
}

func indexLiterals(lits []string) *literals {
	if lits == nil {
		return nil
	}
	idx := &literals{by: map[uint32][]string{}}
	for _, l := range lits {
		idx.first[l[0]] = true
		k := uint32(l[0])<<8 | uint32(l[1])
		idx.by[k] = append(idx.by[k], l)
	}
	return idx
}

// in reports whether text holds one of the literals: a look-up a byte instead of a search of
// text for each.
func (idx *literals) in(text string) bool {
	for i := 0; i+1 < len(text); i++ {
		if !idx.first[text[i]] {
			continue
		}
		for _, l := range idx.by[uint32(text[i])<<8|uint32(text[i+1])] {
			if strings.HasPrefix(text[i:], l) {
				return true
			}
		}
	}
	return false
}

// leadingLiterals returns literal strings one of which starts every match of expr, or nil when
// they cannot be worked out within most, or are too short to help (a match may start with a
// digit class).
func leadingLiterals(expr string, most int) []string {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	lits, _, ok := leading(re, most)
	if !ok || len(lits) == 0 {
		return nil
	}
	for _, l := range lits {
		if len(l) < 2 {
			return nil
		}
	}
	return lits
}

// leading returns the literal prefixes of re's matches, whether re matches exactly those strings,
// and whether the prefixes are known; a sequence stops growing them past most.
func leading(re *syntax.Regexp, most int) ([]string, bool, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return nil, false, false
		}
		return []string{string(re.Rune)}, true, true
	case syntax.OpCharClass:
		var out []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				out = append(out, string(r))
				if len(out) > 4 {
					return nil, false, false
				}
			}
		}
		return out, true, true
	case syntax.OpCapture:
		return leading(re.Sub[0], most)
	case syntax.OpQuest:
		l, exact, ok := leading(re.Sub[0], most)
		if !ok {
			return nil, false, false
		}
		return append([]string{""}, l...), exact, true
	case syntax.OpAlternate:
		var all []string
		exact := true
		for _, sub := range re.Sub {
			l, ex, ok := leading(sub, most)
			if !ok {
				return nil, false, false
			}
			all = append(all, l...)
			exact = exact && ex
		}
		return all, exact, true
	case syntax.OpConcat:
		acc := []string{""}
		for _, sub := range re.Sub {
			switch sub.Op {
			case syntax.OpWordBoundary, syntax.OpBeginLine, syntax.OpBeginText, syntax.OpEmptyMatch:
				continue
			}
			l, exact, ok := leading(sub, most)
			if !ok || len(acc)*len(l) > most {
				return acc, false, acc[0] != "" || len(acc) > 1
			}
			var next []string
			for _, a := range acc {
				for _, b := range l {
					next = append(next, a+b)
				}
			}
			acc = next
			if !exact {
				return acc, false, true
			}
		}
		return acc, true, true
	}
	return nil, false, false
}

// normalForPolicy folds look-alikes and case and puts one space between words.
func normalForPolicy(s string) string {
	v := screen.ScreenView(s)
	out, _ := screen.Leet(v.B) // "p0rn", "c4sino"
	return string(out)
}

// sentenceAround returns the sentence (or line) that holds [s, e).
func sentenceAround(text string, s, e int) string {
	lo := s
	for lo > 0 && text[lo-1] != '\n' && !((text[lo-1] == '.' || text[lo-1] == '!' || text[lo-1] == '?' || text[lo-1] == ';') && lo < len(text) && text[lo] == ' ') {
		lo--
	}
	hi := e
	for hi < len(text) && text[hi] != '\n' && !((text[hi] == '.' || text[hi] == '!' || text[hi] == '?' || text[hi] == ';') && (hi+1 == len(text) || text[hi+1] == ' ')) {
		hi++
	}
	return text[lo:hi]
}

// flatten writes the keys and values of params as text, one per line, in a stable order.
func flatten(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
	case string:
		b.WriteString(x)
		b.WriteString("\n")
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			b.WriteString(strings.ReplaceAll(k, "_", " "))
			b.WriteString(": ")
			flatten(b, x[k])
		}
	case []any:
		for _, e := range x {
			flatten(b, e)
		}
	case []string:
		for _, e := range x {
			b.WriteString(e)
			b.WriteString("\n")
		}
	default:
		fmt.Fprintf(b, "%v\n", x)
	}
}
