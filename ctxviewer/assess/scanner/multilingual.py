"""Family ``injection.multilingual``: the override and "say that ..." kinds in other languages.

Attack kind: the same instruction as :mod:`.override`, written in the language of the data or in
another one to slip past English-only filters. Per language (DE, FR, ES, IT, PT, RU, ZH, JA, KO,
AR, HI, BN, VI, TR, ID, TL, TH, PL, NL) there are three patterns: an "ignore / forget" verb with an
object that is the instructions or the input ("die obigen Anweisungen", "以上的指令"); a demand on
"your answer"; and "say / state that ..." (the model is told what to assert). Help-text
translations use "ignore" ("Groß-/Kleinschreibung ignorieren"), so a bare verb never fires.
"""

from __future__ import annotations

import re

from ctxviewer.assess.scanner.patterns import LazyPattern, PatternRule
from ctxviewer.model.findings import Severity

KANA = "\u3040-\u309f"
"""Hiragana: Japanese text (its particles). A Chinese pattern never reaches across them, so
"これまでの指示はすべて無視して" (無視 and 指示 are words of both) is labelled ``[ja]``, not ``[zh]``;
katakana stays crossable (a name or a loanword in Chinese text, "约翰・史密斯", "ソニー")."""


def _near(a: str, b: str, gap: int = 40, lang: str = "") -> str:
    """``a`` then ``b`` (or ``b`` then ``a``) with at most ``gap`` characters between, one sentence
    (for ``lang`` ``"zh"``: with no hiragana between, :data:`KANA`)."""
    between = rf"[^.!?。！？\n{KANA}]" if lang == "zh" else r"[^.!?。！？\n]"
    return rf"(?:(?:{a}){between}{{0,{gap}}}(?:{b})|(?:{b}){between}{{0,{gap}}}(?:{a}))"


# language: (ignore verbs, objects, "your answer" + imperative, "say that")
_LANG: dict[str, tuple[str, str, str, str]] = {
    "de": (r"\bignorier\w*|\bvergiss\b|\bvergessen\s+sie\b|\bmissacht\w*|\bübergeh\w*|\bverwirf\b|\bbeachte\w*\s+nicht",
           r"\banweisung\w*|\banleitung\w*|\bbefehl\w*|\bvorgabe\w*|\bregeln\b|\bfunktion\b|\btext\b|\binhalt\b|\bvorherig\w*|\bbisherig\w*|\bobig\w*|\balles\b|\blebenslauf\b|\bwebseite\b|\bdaten\b",
           r"\b(?:deine|ihre|eure)\s+antwort\b",
           r"\b(?:sag|sage|sagen\s+sie|behaupte|behaupten\s+sie|erkläre|erklären\s+sie|gib|geben\s+sie|antworte|antworten\s+sie|stelle|stellen\s+sie|schreib\w*)\b[^.\n]{0,30}\bdass\b"),
    "fr": (r"\bignor(?:e|ez|er|ons|ions|ant)\b|\boubli(?:e|ez|er|ons)\b|\bne\s+tenez\s+pas\s+compte\b|\bfaites\s+abstraction\b|\bnégligez\b",
           r"\binstructions?\b|\bconsignes?\b|\brègles\b|\bfonction\b|\btexte\b|\bcontenu\b|\bci-dessus\b|\bprécédent\w*|\btout\b|\bCV\b|\bpage\s+web\b|\bdonnées\b",
           r"\b(?:votre|ta)\s+réponse\b",
           r"\b(?:indiquez|indique|dites|dis|affirmez|affirme|déclarez|déclare|répondez|réponds|précisez|écrivez)\b[^.\n]{0,30}\bque\b"),
    "es": (r"\bignor(?:a|e|en|ar|emos|amos|ando)\b|\bolvid(?:a|e|en|ar|emos)\b|\bhaz\s+caso\s+omiso\b|\bdescart(?:a|e|ar)\b|\bomit(?:e|a|ir)\b",
           r"\binstrucciones\b|\bindicaciones\b|\breglas\b|\bfunción\b|\btexto\b|\bcontenido\b|\banterior\w*|\barriba\b|\btodo\b|\bcurrículum\b|\bpágina\s+web\b|\bdatos\b",
           r"\b(?:tu|su)\s+respuesta\b",
           r"\b(?:di|diga|indica|indique|afirma|afirme|declara|declare|responde|responda|escribe|escriba|establece|establezca)\b[^.\n]{0,30}\bque\b"),
    "it": (r"\bignor(?:a|ate|are|iamo|ando|assimo)\b|\bdimentic(?:a|ate|are|hiamo)\b|\btrascur(?:a|ate|are)\b|\bnon\s+tener\s+conto\b",
           r"\bistruzioni\b|\bindicazioni\b|\bregole\b|\bfunzione\b|\btesto\b|\bcontenuto\b|\bprecedent\w*|\bsopra\b|\btutto\b|\bcurriculum\b|\bpagina\s+web\b|\bdati\b",
           r"\b(?:la\s+tua|la\s+sua|vostra)\s+risposta\b",
           r"(?:\bdi'|\bdì\b|\bdica\b|\bindica\b|\bindicate\b|\bafferma\b|\bdichiara\b|\brispondi\b|\bscrivi\b|\bsostieni\b)[^.\n]{0,30}\bche\b"),
    "pt": (r"\bignor(?:e|a|em|ar|emos|amos|ando)\b|\besque(?:ça|çam|cer|ça-se)\b|\bdesconsider(?:e|a|ar)\b|\bdesrespeit(?:e|a)\b",
           r"\binstruções\b|\binstrucoes\b|\borientações\b|\bregras\b|\bfunção\b|\btexto\b|\bconteúdo\b|\banterior\w*|\bacima\b|\btudo\b|\bcurrículo\b|\bpágina\s+web\b|\bdados\b",
           r"\b(?:sua|tua)\s+resposta\b",
           r"\b(?:diga|diz|afirme|declare|indique|responda|escreva|informe)\b[^.\n]{0,30}\bque\b"),
    "ru": (r"игнорир\w*|проигнорир\w*|забуд\w*|не\s+обращай\w*\s+внимания|пренебреги\w*|отбрось\w*",
           r"инструкци\w*|указани\w*|правил\w*|функци\w*|текст\w*|выше|предыдущ\w*|вс[её]|резюме|содержани\w*|веб-страниц\w*|данны\w*",
           r"(?:твой|ваш)\s+ответ",
           r"(?:скажи|скажите|укажи|укажите|заяви|заявите|ответь|ответьте|напиши|напишите|утверждай\w*|сообщи\w*)[^.\n]{0,30}\bчто\b"),
    "zh": (r"忽略|无视|忽视|不要理会|不理会|忘记|忘掉|忘了|無視|忽略掉|不用管",
           r"指令|指示|说明|說明|规则|規則|提示|函数|函數|内容|內容|文本|简历|簡歷|以上|上面|之前|先前|前面|所有|一切|功能|网页|網頁|数据|數據",
           r"你的(?:回答|回复|回覆|答案|输出|輸出)",
           r"(?:说|說|声称|聲稱|表示|陈述|陳述|指出|回答|声明|聲明|告诉|宣称)[^。！？\n]{0,6}(?:输出|答案|结果|結果|首都|结论|結論|总和|總和)?[^。！？\n]{0,4}(?:是|为|為)"),
    "ja": (r"無視|忘れ|従わない|従うな",
           r"指示|命令|ルール|関数|機能|内容|テキスト|以前|上記|前の|すべて|全て|履歴書|文書|ウェブページ|データ",
           r"(?:あなたの|君の)(?:回答|返答|応答|出力|答え)",
           r"(?:と|だと)(?:述べ|言っ|言い|答え|回答し|主張し|記載し|伝え|書い)"),
    "ko": (r"무시|잊어|잊으",
           r"지시|명령|규칙|함수|기능|내용|이전|위의|모든|이력서|텍스트|웹\s*페이지|데이터",
           r"(?:당신의|너의|귀하의)\s*(?:답변|대답|응답|출력)",
           r"(?:라고|다고|이라고)\s*(?:말|답|명시|진술|주장|언급|대답|작성)"),
    "ar": (r"تجاهل\w*|انس(?:َ|ى)?\b|لا\s+تلتفت|أهمل\w*|اهمل\w*",
           r"تعليمات|التعليمات|الأوامر|القواعد|الوظيفة|الدالة|النص|المحتوى|السابق\w*|أعلاه|كل\s+شيء|السيرة|صفحة\s+الويب|البيانات",
           r"(?:إجابتك|ردك|اجابتك)",
           r"(?:قل|قولي|اذكر|صرح|أجب|اكتب|أعلن)\s+(?:أن|ان|بأن)"),
    "hi": (r"अनदेखा|नज़रअंदाज़|नजरअंदाज|भूल\s+जा|उपेक्षा|ध्यान\s+न\s+द",
           r"वेबपेज|वेब\s+पेज|डेटा|निर्देश|आदेश|नियम|फ़ंक्शन|फंक्शन|सामग्री|पाठ|पिछल|ऊपर|सब\s*कुछ|बायोडाटा|रिज्यूमे|कार्य",
           r"(?:आपका|आपके|तुम्हारा)\s+(?:उत्तर|जवाब)",
           r"(?:कहें|कहिए|कहो|बताएं|बताइए|बताओ|बताएँ|लिखें|घोषित\s+करें|दावा\s+करें)\s+कि"),
    "bn": (r"উপেক্ষা|অগ্রাহ্য|ভুলে\s+যা|এড়িয়ে\s+যা|উপেক্ষ",
           r"ওয়েবপেজ|ওয়েব\s+পেজ|ডেটা|অবস্থা|নির্দেশ|আদেশ|নিয়ম|ফাংশন|বিষয়বস্তু|পাঠ্য|আগের|পূর্ববর্তী|উপরের|সব|জীবনবৃত্তান্ত",
           r"(?:আপনার|তোমার)\s+(?:উত্তর|জবাব)",
           r"(?:বলুন|বলো|জানান|লিখুন|দাবি\s+করুন|উল্লেখ\s+করুন)\s+যে"),
    "vi": (r"\bbỏ\s+qua\b|\bphớt\s+lờ\b|\bquên\s+(?:đi|hết)\b|\blờ\s+đi\b|\bkhông\s+để\s+ý\b|\bbỏ\s+ngoài\s+tai\b",
           r"\btrang\s+web\b|\bdữ\s+liệu\b|\bhướng\s+dẫn\b|\bchỉ\s+thị\b|\blệnh\b|\bquy\s+tắc\b|\bhàm\b|\bnội\s+dung\b|\bvăn\s+bản\b|\btrước\s+đó\b|\bở\s+trên\b|\btất\s+cả\b|\bsơ\s+yếu\b|\bchức\s+năng\b",
           r"\bcâu\s+trả\s+lời\s+của\s+(?:bạn|anh|chị)\b",
           r"\b(?:hãy\s+)?(?:nói|khẳng\s+định|tuyên\s+bố|trả\s+lời|nêu|viết)\s+(?:rằng|là)\b"),
    "tr": (r"\bgörmezden\s+gel\w*|\byok\s+say\w*|\bunut\w*|\bdikkate\s+alma\w*|\bgöz\s+ardı\s+et\w*|\baldırma\w*",
           r"\bweb\s+sayfa\w*|\bveri\w*|\btalimat\w*|\bkomut\w*|\bkural\w*|\bfonksiyon\w*|\bişlev\w*|\biçeri\w*|\bmetn\w*|\bmetin\w*|\bönceki\w*|\byukarıdaki\w*|\bher\s+şey\w*|\bözgeçmiş\w*",
           r"\b(?:cevabın\w*|yanıtın\w*|cevabınız\w*|yanıtınız\w*)",
           r"(?:olduğunu|diye|olarak)\s+(?:söyle|belirt|yaz|iddia\s+et|beyan\s+et|ifade\s+et|cevap\s+ver)\w*"),
    "id": (r"\babaikan\b|\blupakan\b|\bjangan\s+hiraukan\b|\bacuhkan\b|\bkesampingkan\b",
           r"\bhalaman\s+web\b|\bdata\b|\binstruksi\b|\bperintah\b|\baturan\b|\bfungsi\b|\bkonten\b|\bisi\b|\bteks\b|\bsebelumnya\b|\bdi\s+atas\b|\bsemua\b|\bresume\b|\briwayat\s+hidup\b",
           r"\bjawaban\s+(?:anda|kamu|mu)\b",
           r"\b(?:katakan|nyatakan|sebutkan|tuliskan|jawab|laporkan)(?:lah)?\s+(?:bahwa|jika)\b"),
    "tl": (r"\bhindi\s+(?:namin\s+|natin\s+|ko\s+)?pinapansin\b|\bhuwag\s+pansinin\b|\bbalewalain\b|\bkalimutan\b|\bipagwalang[-\s]bahala\b|\bhuwag\s+intindihin\b|\bhindi\s+pansinin\b",
           r"\bwebpage\b|\bdatos\b|\btagubilin\b|\butos\b|\bpanuto\b|\bpatakaran\b|\bfunction\b|\bfunksyon\b|\bnilalaman\b|\bteksto\b|\bnakaraan\b|\bsa\s+itaas\b|\blahat\b|\bresume\b",
           r"\biyong\s+sagot\b|\bsagot\s+mo\b",
           r"\b(?:sabihin|ipahayag|isulat|sagutin|iulat|ideklara)\s+(?:mo\s+)?(?:na|ang)\b"),
    "th": (r"เพิกเฉย|ไม่สนใจ|ลืม|ละเว้น|ละทิ้ง|ไม่ต้องสนใจ|มองข้าม",
           r"หน้าเว็บ|ข้อมูล|คำสั่ง|คำแนะนำ|กฎ|ฟังก์ชัน|เนื้อหา|ข้อความ|ก่อนหน้า|ข้างต้น|ทั้งหมด|เรซูเม่|ประวัติ",
           r"คำตอบของคุณ",
           r"(?:บอกว่า|ระบุว่า|กล่าวว่า|ตอบว่า|ยืนยันว่า|อ้างว่า|เขียนว่า)"),
    "pl": (r"\bzignoruj\w*|\bignoruj\w*|\bzapomnij\w*|\bpomiń\b",
           r"\binstrukcj\w*|\bpolece\w*|\bzasad\w*|\bfunkcj\w*|\btreść\w*|\btekst\w*|\bpoprzedni\w*|\bpowyższ\w*|\bwszystk\w*",
           r"\btwoja\s+odpowiedź\b|\btwojej\s+odpowiedzi\b",
           r"\b(?:powiedz|stwierdź|napisz|odpowiedz|oświadcz)\w*\s+(?:że|iż)\b"),
    "nl": (r"\bnegeer\w*|\bvergeet\b|\bnegeren\b",
           r"\binstructies\b|\bopdrachten\b|\bregels\b|\bfunctie\b|\btekst\b|\binhoud\b|\bvorige\b|\bhierboven\b|\balles\b",
           r"\b(?:je|jouw|uw)\s+antwoord\b",
           r"\b(?:zeg|stel|beweer|antwoord|schrijf|verklaar)\b[^.\n]{0,20}\bdat\b"),
}

_FLAGS = re.IGNORECASE | re.UNICODE


def _patterns() -> tuple[tuple[LazyPattern, str], ...]:
    out: list[tuple[LazyPattern, str]] = []
    for lang, (ignore, objects, answer, say_that) in _LANG.items():
        out.append((LazyPattern(_near(ignore, objects, 30, lang), _FLAGS),
                    f"[{lang}] tells the model to drop its instructions or input: '{{m}}'"))
        out.append((LazyPattern(_near(ignore, say_that, 60, lang), _FLAGS),
                    f"[{lang}] tells the model to disregard its input and assert something else: '{{m}}'"))
        out.append((LazyPattern(answer, _FLAGS),
                    f"[{lang}] speaks of the model's own answer: '{{m}}'"))
        out.append((LazyPattern(say_that, _FLAGS), f"[{lang}] tells the model what to assert: '{{m}}'"))
    return tuple(out)


_ALL = _patterns()
# "your answer" and "say that" alone are weak (info): help texts and letters use them.
STRONG = tuple(p for i, p in enumerate(_ALL) if i % 4 in (0, 1))
WEAK = tuple(p for i, p in enumerate(_ALL) if i % 4 in (2, 3))

MULTILINGUAL = PatternRule(
    id="injection.multilingual",
    title="override or dictated answer in a language other than English",
    severity=Severity.WARNING,
    patterns=STRONG,
)
MULTILINGUAL_WEAK = PatternRule(
    id="injection.multilingual",
    title=MULTILINGUAL.title,
    severity=Severity.INFO,
    patterns=WEAK,
)
