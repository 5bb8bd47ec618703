"""The ``smart`` tokenizer: words of every script, CJK bigrams, code identifiers (``run_forms``), and English
word forms folded to a light stem (``fold``) on both sides of a match, so ``fixing`` and ``fixed`` meet ``fix``."""
from __future__ import annotations

from ..base.config import section
from ..base.sanitize import normalize as nfkc
from .tokens import STOP_WORDS as SEED_STOP_WORDS

# The seed's list plus English function words, number words ("a three day trip" is about no memory
# with "three" in its title) and CJK function words; ``retrieval.stop_words`` extends or replaces it.
STOP_WORDS = SEED_STOP_WORDS | frozenset({
    "am", "as", "any", "all", "our", "ours", "us", "its", "his", "her", "their", "them", "there", "here",
    "than", "some", "such", "only", "own", "same", "other", "more", "most", "again", "now", "still",
    "over", "under", "after", "before", "again", "while", "during", "because", "until", "via",
    "each", "both", "few", "many", "much", "one", "two", "way", "thing", "things", "something",
    "anything", "everything", "someone", "got", "getting", "going", "gonna", "wanna",
    "ok", "okay", "hey", "hi", "thanks", "thank", "sure", "really", "actually", "maybe",
    "don", "doesn", "isn", "didn", "wasn", "aren", "won", "couldn", "shouldn", "wouldn", "ll", "ve", "re",
    "tell", "show", "give",
    "look", "try", "again", "quick", "quickly", "question", "anyone", "why", "whats", "lets", "im",
    "dont", "doesnt", "isnt", "cant", "did", "done", "said", "say", "says", "way",
    "between", "without", "within", "across", "against", "along", "among", "around", "behind", "below",
    "beside", "beyond", "down", "off", "onto", "per", "since", "through", "toward", "towards", "upon",
    "whether", "though", "although", "unless", "whereas", "whose", "whatever", "whenever", "wherever",
    "usually", "often", "sometimes", "ever", "even", "every", "everyone", "nothing", "already", "yet",
    "enough", "able", "possible", "kind", "sort", "lot", "lots", "bit", "new", "keep", "keeps", "happen",
    "happens", "happened", "happening", "explain", "difference", "good", "best", "better", "right", "well",
    "should", "shouldn", "anymore", "somehow", "somewhere", "everywhere", "next", "last", "first",
    "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "twenty", "hundred",
    "thousand",
    "하는", "해줘", "해주세요", "어떻게", "무엇", "뭐야", "있어", "있나요", "알려줘", "알려주세요",
    "する", "して", "です", "ます", "ですか", "ますか", "どう", "何", "について", "ください", "教えて",
    "怎么", "什么", "如何", "的", "了", "吗", "是", "在", "我们", "一下", "请",
})

FOLD_MIN = 4  # ASCII words shorter than this are left as they are

_HANGUL, _HIRAGANA, _KATAKANA, _HAN, _WORD, _JOIN, _OTHER = range(7)
_JOINERS = frozenset("_-./")
_TO_UNDERSCORE = {ord(ch): "_" for ch in _JOINERS}
_CJK = frozenset({_HANGUL, _HIRAGANA, _KATAKANA, _HAN})
_class_cache: dict = {}


def char_class(ch: str) -> int:
    """The run class of one character (memoised: the scan looks at every character)."""
    cls = _class_cache.get(ch)
    if cls is not None:
        return cls
    o = ord(ch)
    if 0xAC00 <= o <= 0xD7A3 or 0x1100 <= o <= 0x11FF or 0x3130 <= o <= 0x318F:
        cls = _HANGUL
    elif 0x3040 <= o <= 0x309F:
        cls = _HIRAGANA
    elif 0x30A0 <= o <= 0x30FF or 0x31F0 <= o <= 0x31FF:
        cls = _KATAKANA
    elif 0x3400 <= o <= 0x4DBF or 0x4E00 <= o <= 0x9FFF or 0xF900 <= o <= 0xFAFF or 0x20000 <= o <= 0x3FFFF:
        cls = _HAN
    elif ch in _JOINERS:
        cls = _JOIN
    elif ch.isalnum() if ch.isascii() else _unicodedata().category(ch)[0] in "LNM":  # ASCII: L and N alone
        cls = _WORD
    else:
        cls = _OTHER
    if len(_class_cache) < 50000:
        _class_cache[ch] = cls
    return cls


def runs(text: str):
    """Yield ``(class, run)`` for each CJK run and each identifier (words joined by ``_ - . /``)."""
    i, n = 0, len(text)
    while i < n:
        cls = char_class(text[i])
        if cls in _CJK:
            j = i + 1
            while j < n and char_class(text[j]) == cls:
                j += 1
            yield cls, text[i:j]
            i = j
        elif cls == _WORD or text[i] == "_":
            j = i + 1
            while j < n:
                c = char_class(text[j])
                # a joiner continues the identifier only when a word character follows it ("_" always)
                if c == _WORD or text[j] == "_" or (c == _JOIN and j + 1 < n and char_class(text[j + 1]) == _WORD):
                    j += 1
                else:
                    break
            yield _WORD, text[i:j]
            i = j
        else:
            i += 1


def split_case(word: str) -> list:
    """``parseHTTPResponse2`` -> ``parse``, ``HTTP``, ``Response2``: cut at lower->upper and UPPER->Upperlower."""
    pieces, start = [], 0
    for i in range(1, len(word)):
        prev, cur = word[i - 1], word[i]
        nxt = word[i + 1] if i + 1 < len(word) else ""
        if cur.isupper() and (prev.islower() or prev.isdigit() or (prev.isupper() and nxt.islower())):
            pieces.append(word[start:i])
            start = i
    pieces.append(word[start:])
    return [p for p in pieces if p]


def fold(word: str) -> str:
    """A light, deterministic English stem: applied to ASCII letter words of 4+ characters."""
    if len(word) < FOLD_MIN or not (word.isascii() and word.isalpha()):
        return word
    w = word
    # plurals
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("sses"):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")) and len(w) > 3:
        w = w[:-1]
    # one derivational or inflectional ending
    stripped = False
    if w.endswith("ied") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("ing") and len(w) - 3 >= 3:
        w, stripped = w[:-3], True
    elif w.endswith("ed") and not w.endswith("eed") and len(w) - 2 >= 3:
        w, stripped = w[:-2], True
    elif w.endswith("tion") and len(w) - 3 >= 4:
        w = w[:-3]
    elif w.endswith("ment") and len(w) - 4 >= 4:
        w = w[:-4]
    if stripped and len(w) >= 4 and w[-1] == w[-2] and w[-1] not in "aeioulsz":
        w = w[:-1]  # logging -> logg -> log, mapped -> mapp -> map
    if w.endswith("e") and len(w) >= 4:
        w = w[:-1]  # cache/caching/cached -> cach
    return w


def stop_words_from(config_value) -> frozenset:
    """``retrieval.stop_words``: a list adds words; ``{"extra": [...], "replace": [...]}`` adds or replaces."""
    words, extra = STOP_WORDS, config_value if isinstance(config_value, list) else []
    if isinstance(config_value, dict):
        replace = config_value.get("replace")
        if isinstance(replace, list):
            words = frozenset(normalize(w) for w in replace if isinstance(w, str))
        if isinstance(config_value.get("extra"), list):
            extra = config_value["extra"]
    return words | frozenset(normalize(w) for w in extra if isinstance(w, str))


def stop_words_for(config: dict) -> frozenset:
    """The stop words of a store's configuration (``retrieval.stop_words``)."""
    return stop_words_from(section(config, "retrieval").get("stop_words"))


def _unicodedata():
    import unicodedata  # a C module: loaded for non-ASCII text only (start-up speed, issue 26)
    return unicodedata


def normalize(text: str) -> str:
    """NFKC and case folding."""
    return nfkc(text).casefold()


def token_groups(text: str, stop_words: frozenset = STOP_WORDS) -> list:
    """The match tokens of ``text`` (NFKC) by the run they came from, in order; a token only in its first group."""
    text = nfkc(text)
    seen: set = set()
    groups = []
    done: set = set()  # a run seen before adds nothing new (long prompts repeat words)
    for cls, run in runs(text):
        if run in done:
            continue
        done.add(run)
        group = []
        for _, folded in run_forms(cls, run, stop_words):
            if folded and folded not in stop_words and folded not in seen:
                seen.add(folded)
                group.append(folded)
        if group:
            groups.append(group)
    return groups


def run_forms(cls: int, run: str, stop_words: frozenset = STOP_WORDS) -> list:
    """``[(form, folded)]`` of one run, no stop words nor single letters (but Han): an identifier, its parts (at joiners
    and case changes) and their join; a CJK run, itself and its bigrams (lone kana and Hangul drop)."""
    if cls == _WORD:
        raw = run.strip("".join(_JOINERS))
        pieces = [piece for part in raw.translate(_TO_UNDERSCORE).split("_") if part for piece in split_case(part)]
        forms = [raw] if raw else []
        if len(pieces) > 1:
            forms += pieces + ["".join(pieces)]
    elif run.casefold() in stop_words:
        return []  # a CJK stop word (``어떻게``) gives no bigrams either
    elif len(run) > 1:
        forms = [run] + [run[i:i + 2] for i in range(len(run) - 1)]
    else:
        forms = [run] if cls == _HAN else []
    return [(form, fold(form)) for form in (form.casefold() for form in forms)
            if form not in stop_words and (len(form) >= 2 or char_class(form[:1] or " ") == _HAN)]


def joined_pairs(text: str, stop_words: frozenset = STOP_WORDS) -> list:
    """Neighbouring plain words joined (``sleep current`` -> ``sleepcurrent``): a compound tag meets them whole."""
    text = nfkc(text)
    out, last, last_end = [], None, -1
    i = 0
    for cls, run in runs(text):
        start = text.find(run, i)
        i = start + len(run)
        plain = cls == _WORD and run.isalnum()
        if plain and last is not None and start > last_end and not text[last_end:start].strip(" "):
            joined = fold((last + run).casefold())
            if len(joined) >= 4 and joined not in stop_words and joined not in out:
                out.append(joined)
        last, last_end = (run, i) if plain else (None, -1)
    return out


def tokenize(text: str, stop_words: frozenset = STOP_WORDS) -> set:
    return {t for group in token_groups(text, stop_words) for t in group}


# -- irregular English verb forms: "what did Ana lose?" meets a memory that says she *lost* it. ``fold`` handles regular
# endings; the prompt side tries each listed form of a word (``alternates``) at ``weights.IRREGULAR`` x its points
# (folding them in the index was measured and lost). Left out: forms as often another word (``left``, ``ground``) and
# verbs whose forms are stop words. One verb between commas: the base form, then its irregular past and past participle.
VERBS = """
arise arose arisen, awake awoke awoken, bear bore borne, become became, begin began begun, bend bent, bet,
bleed bled, blow blew blown, break broke broken, breed bred, bring brought, build built, burn burnt,
buy bought, catch caught, choose chose chosen, cling clung, come came, creep crept, deal dealt, dig dug,
dream dreamt, drink drank drunk, drive drove driven, eat ate eaten, fall fell fallen, feel felt,
fight fought, find found, flee fled, fling flung, fly flew flown, forbid forbade forbidden,
forget forgot forgotten, forgive forgave forgiven, freeze froze frozen, give gave given, grind ground,
grow grew grown, hang hung, hear heard, hide hid hidden, hold held, keep kept, kneel knelt, lay laid,
lead led, lean leant, leap leapt, learn learnt, leave left, lend lent, lose lost, mean meant, meet met,
overcome overcame, pay paid, prove proven, ride rode ridden, ring rang rung, rise rose risen, run ran,
say said, seek sought, sell sold, send sent, shake shook shaken, shine shone, shoot shot,
shrink shrank shrunk, sing sang sung, sink sank sunk, sit sat, sleep slept, slide slid, speak spoke spoken,
speed sped, spell spelt, spend spent, spill spilt, spin spun, spit spat, stand stood, steal stole stolen,
stick stuck, sting stung, stink stank stunk, strike struck stricken, swear swore sworn, sweep swept,
swim swam swum, swing swung, take took taken, teach taught, tear tore torn, tell told, think thought,
throw threw thrown, understand understood, wake woke woken, wear wore worn, weep wept, win won, wind wound,
write wrote written
"""
_LEFT_OUT = frozenset({"ground", "left", "led", "rose", "shot", "wound", "bore", "saw"})


def _build_alternates(text: str = VERBS, left_out: frozenset = _LEFT_OUT) -> dict:
    """Folded word -> the other folded words of its group (groups: ``text`` between commas)."""
    table: dict = {}
    for group in text.replace("\n", ",").split(","):
        forms = {fold(w) for w in group.split() if w not in left_out and w not in STOP_WORDS}
        for form in forms:
            table.setdefault(form, set()).update(forms - {form})
    return {form: tuple(sorted(others)) for form, others in table.items() if others}


_tables: dict = {}  # VERBS or NAMES -> folded word -> the other folded words of its group, built on first use


def _others(token: str, text: str, left_out: frozenset) -> tuple:
    if token not in text:  # every folded form is a part of its word: most prompt words build no table
        return ()
    if text not in _tables:
        _tables[text] = _build_alternates(text, left_out)
    return _tables[text].get(token, ())


def alternates(token: str) -> tuple:
    """The other forms of the verb ``token`` (a folded prompt token) is a form of, sorted; () if none."""
    return _others(token, VERBS, _LEFT_OUT)


# -- names of one thing: "the k8s cluster" meets a memory about *Kubernetes*. The prompt side tries each other name of
# a word (``synonyms``) at ``weights.SYNONYM`` x its points. Only names a developer uses for the same thing: short
# forms (``k8s``, ``authn``), spellings (``regexp``), a tool or a service for what it drives (``kubectl``, ``eks``),
# generative-AI assistants. Not everyday words (``delete``/``remove``, ``db``/``database``): their other names are as
# common, and meeting them lets a prompt about nothing in the store speak (docs/retrieval-eval.md, round 8).
NAMES = """
kubernetes k8s kube, kubectl kubernetes, javascript ecmascript, typescript ts, postgres postgresql psql,
repository repo, configuration cfg, authentication authn, authorization authz, login signin logon,
logout signout, localization l10n translation, internationalization i18n, pr pullrequest, email mail,
mock fake stub, raise throw, folder directory, dependency deps, administrator admin, production prod,
password passwd, certificate cert, tls ssl, aws amazon, terraform tf, github gh, e2e endtoend, regex regexp,
asynchronous async, temporary tmp temp, chatgpt genai llm copilot, mfa 2fa twofactor, eks kubernetes,
gke kubernetes, aks kubernetes, yaml yml, mongodb mongo, graphql gql
"""


def synonyms(token: str) -> tuple:
    """The other names (``NAMES``) of what ``token`` (a folded prompt token) names, sorted; () if none."""
    return _others(token, NAMES, frozenset())
