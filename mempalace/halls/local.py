"""What the hall classifier reads in drawers not written in English: which focus is not English, and
the strongest cues of each hall in Chinese, Japanese, Spanish, Russian, German and French.

A focus is local (not English) when its words in other languages outweigh its English function words:
Han, kana and Cyrillic letters count, and so do the common function words of Spanish, German and
French. Only a local focus is read with these patterns (an English one is read exactly as before),
and it gets a hall only when its cues name the same hall as the vote (`classifier.HallClassifier.decide`): the English
examples the vote is fitted on say little about other languages, so a wrong hall is not risked.
The cues are the language's own words for what each hall holds (a decision, a dated happening,
a cause found, a liking, a recommendation), not the topics of any set.
"""

from __future__ import annotations

import re

from ..language.languages import HAN, KANA

_CJK = KANA + HAN
CJK_CHAR = re.compile(f"[{_CJK}]")
LOCAL_WORD = re.compile(rf"[^\W\d_{_CJK}]{{2,}}")  # a word of two letters or more, in any alphabet
_CYRILLIC_WORD = re.compile(r"[\u0400-\u04ff]{2,}")
_ENGLISH = frozenset("the and is are to of that it you we this with for have be not they what my your our "
                     "i'm it's don't can will just there would should".split())
_LATIN_LOCAL = frozenset(  # common Spanish, German and French function words that English never uses
    "el los las del una por para con que es está son muy pero como más también hay ya "
    "der das und ist nicht ein eine mit für auf den dem sich auch wir ich sie es wird sind noch aber dass zu im nur oder wenn "
    "le les des une et est pas pour avec dans que qui sur nous vous je il elle ce sont très".split())


def is_local(text: str) -> bool:
    """True when `text` is mostly not English (CJK, Cyrillic or Latin-alphabet words of other languages)."""
    lowered = text.lower()
    words = re.findall(r"[^\W\d_]+(?:'[^\W\d_]+)?", lowered)
    english = sum(w in _ENGLISH for w in words)
    local = len(CJK_CHAR.findall(lowered)) / 2 + len(_CYRILLIC_WORD.findall(lowered)) + \
        sum(w in _LATIN_LOCAL for w in words) + len(LOCAL_SOCIAL.findall(lowered))
    return local > english


def local_words(text: str) -> int:
    """How many words `text` holds in any script: a CJK word counted as two characters."""
    return len(LOCAL_WORD.findall(text)) + len(CJK_CHAR.findall(text)) // 2


_DAYS_ES = r"(?:lunes|martes|miércoles|jueves|viernes|sábado|domingo)"
_DAYS_DE = r"(?:montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag)"
_DAYS_FR = r"(?:lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche)"
_DAYS_RU = r"(?:понедельник|вторник|среду|четверг|пятницу|субботу|воскресенье)"
_ZH_NUM = r"(?:\d{1,2}|[一二三四五六七八九十]{1,3})"

LOCAL_SOCIAL = re.compile(  # greetings, thanks, farewells and cheers: read as chatter, not as cues
    r"谢谢\w{0,2}|多谢|感谢|你好|您好|哈哈+|好的+|收到|再见|拜拜|加油|辛苦了|不客气|没关系|早上好|晚安|"
    r"ありがとう(?:ございます)?|よろしくお願いします|こんにちは|おはよう(?:ございます)?|お疲れ様(?:です)?|またね|"
    r"\b(?:muchas gracias|gracias|hola|adiós|hasta (?:luego|mañana|pronto)|nos vemos|buen(?:os|as) (?:días|tardes|noches)|"
    r"jaja\w*|vale|perfecto|de nada|suerte|ánimo|felicidades|enhorabuena|"
    r"спасибо(?: большое)?|привет|пока|здравствуйте|добр(?:ый|ое) (?:день|вечер|утро)|до свидания|ок|окей|отлично|"
    r"супер|класс|удачи|поздравляю|"
    r"danke(?: dir| schön)?|dankeschön|vielen dank|hallo|tschüss|bis (?:später|morgen|bald|dann)|"
    r"guten (?:morgen|tag|abend)|schönen (?:abend|tag)(?: noch)?|viel glück|glückwunsch|"
    r"merci(?: beaucoup)?|bonjour|bonsoir|salut|au revoir|à (?:demain|bientôt|plus)|génial|parfait|"
    r"félicitations|bon courage|de rien|ça va)\b", re.I)

LOCAL_CUES: dict[str, list[tuple[str, float]]] = {
    "hall_facts": [
        (r"决定|定了|敲定|商定|约定|达成一致|批准|決め|決ま|決定|合意|承認", 3.5),
        (r"\b(?:decid\w+|acord(?:amos|aron|ado)|quedamos en|aprob(?:ado|aron|amos)|la decisión|"
         r"решили|решено|договорились|согласовали|утвердили|решение|"
         r"beschlossen|entschieden|vereinbart|geeinigt|festgelegt|entscheidung|"
         r"décidée?s?|décision|convenu|validée?|approuvée?)\b", 3.5),
        (r"叫做|称为|是指|意思是|位于|规定|上限|限额|截止|有效期|と呼ば|という意味|規則|ルール|締め切り|期限", 2),
        (r"\b(?:se llama|significa|consiste en|la regla|el límite|el plazo|"
         r"называется|означает|состоит из|правило|лимит|срок|"
         r"heißt|bedeutet|besteht aus|regel|frist|richtlinie|"
         r"s'appelle|signifie|consiste|se compose|la règle|la limite|le délai)\b", 2),
    ],
    "hall_events": [
        (rf"昨天|今天|前天|明天|后天|上周|下周|这周|本周|上个月|下个月|去年|明年|周[一二三四五六日末]|星期[一二三四五六日天]|"
         rf"刚才|刚刚|昨日|今日|明日|先週|来週|今週|先月|来月|昨年|来年|[月火水木金土日]曜日|週末|さっき|"
         rf"{_ZH_NUM}月{_ZH_NUM}[日号]", 1.5),
        (r"\b(?:ayer|hoy|mañana|anoche|anteayer|esta (?:mañana|tarde|noche|semana)|la semana (?:pasada|que viene)|"
         rf"el (?:mes|año) pasado|el próximo|la próxima|el {_DAYS_ES}|hace (?:unos|unas|dos|tres|\d+) \w+|"
         r"вчера|сегодня|завтра|позавчера|на (?:прошлой|этой|следующей) неделе|в прошлом (?:месяце|году)|"
         rf"во? {_DAYS_RU}|недавно|\d+ \w+ назад|"
         rf"gestern|heute|morgen|vorgestern|letzte[nrs]? \w+|nächste[nrs]? \w+|am {_DAYS_DE}|vor (?:\d+|zwei|drei|ein paar|einigen) \w+|neulich|"
         rf"hier(?=,| soir| matin| on| nous| j'| il| elle)|aujourd'hui|demain|la semaine (?:dernière|prochaine)|le mois (?:dernier|prochain)|{_DAYS_FR}|il y a \w+ \w+|ce (?:matin|soir|week-end))\b", 1.5),
        (r"会议|聚会|婚礼|生日|旅行|面试|比赛|演出|考试|上线|发布|停电|会議|飲み会|旅行|試合|誕生日|結婚式|面接|発表|リリース|"
         r"\b(?:reunión|boda|cumpleaños|viaje|fiesta|entrevista|lanzamiento|conferencia|"
         r"встреч\w+|совещани\w+|свадьб\w+|день рождения|поездк\w+|релиз|собеседовани\w+|конференци\w+|"
         r"besprechung|hochzeit|geburtstag|reise|feier|konferenz|"
         r"réunion|mariage|anniversaire|voyage|fête|entretien|conférence|lancement)\b", 1.5),
        (r"\b(?:fuimos|tuvimos|hicimos|presentamos|lanzamos|firmamos|fui|estuve|tuve|llegamos|"
         r"запустили|провели|ездили|ходили|поехали|встретились|случилось|произошло|упал|упала|выпустили|"
         r"waren wir|hatten wir|haben wir|fand statt|findet statt|stattgefunden|"
         r"(?:j'ai|nous avons|on a|ils ont) \w+[éiu]e?s?)\b", 1.5),
    ],
    "hall_discoveries": [
        (r"原来|原因是|是因为|问题出在|根源|难怪|怪不得|查出|判明|原因は|原因が|わかりました|分かりました|わかった|分かった", 3),
        (r"发现|没想到|竟然|居然|気づ|気付|せいで|せいだ", 2.5),
        (r"\b(?:resulta que|result[óo] que|descubr\w+|me di cuenta|nos dimos cuenta|se debía a|se debe a|la causa|venía de|"
         r"оказалось|выяснилось|выяснили|обнаружил\w*|причина|дело было в|проблема была в|"
         r"stellte sich heraus|herausgefunden|festgestellt|entdeckt|gemerkt|lag an|liegt an|ursache|"
         r"il s'avère|il s'est avéré|découvert|rendu compte|venait d\w*|la cause|en fait)\b", 3),
        (r"因为|其实|実は|\b(?:porque|por eso|из-за|потому что|поэтому|weil|deshalb|darum|parce que|à cause de)\b", 1.5),
    ],
    "hall_preferences": [
        (r"喜欢|讨厌|受不了|最爱|宁可|宁愿|好き|嫌い|苦手|好み|お気に入り", 3),
        (r"\b(?:(?:me|te|le|nos|les) (?:encanta|encantan|gusta|gustan)|prefier\w+|prefer\w+|odio|detesto|no soporto|favorit[oa]s?|"
         r"люблю|любит|любим|нравится|нравятся|обожаю|предпочита\w+|терпеть не могу|ненавижу|любим\w+|"
         r"mag|mögen|magst|hasse|bevorzuge|lieber|am liebsten|lieblings\w*|"
         r"aime|aimes|aimons|aiment|adore|adores|adorons|préfère|préfères|préférons|préfèrent|déteste|favori|favorite)\b", 3),
        (r"爱好|习惯|趣味|習慣|\b(?:afición|hobby|хобби|привычк\w+|gewohnheit|passe-temps)\b", 2.5),
        (r"总是|一般都|从来不|いつも|\b(?:siempre|nunca|normalmente|suelo|всегда|никогда|обычно|immer|nie|normalerweise|"
         r"toujours|jamais|d'habitude)\b", 1.25),
    ],
    "hall_advice": [
        (r"建议|推荐|おすすめ|お勧め|勧め|すすめ|ほうがいい|方がいい", 3),
        (r"应该|最好|一定要|记得|别忘了|不妨|千万|べき|忘れずに|気をつけ|してください|しましょう", 2.5),
        (r"[你您](?:应该|最好|得|要)|\b(?:du solltest|ihr solltet|sie sollten|du musst|tu devrais|vous devriez|deberías|"
         r"deberíais|tienes que|тебе (?:стоит|нужно|надо)|вам (?:стоит|нужно|надо)|ты должен|вы должны)\b", 1),
        (r"试试|注意|てみて", 2),
        (r"\b(?:recomiendo|recomendamos|aconsejo|sugiero|советую|рекомендую|empfehle|empfehlen|rate dir|"
         r"(?:je )?(?:te |vous )?(?:conseille|recommande|suggère))\b", 3),
        (r"\b(?:deberías|debería|tienes que|hay que|conviene|es mejor|asegúrate|no olvides|acuérdate|procura|ojo con|"
         r"стоит|следует|лучше|обязательно|не забудь\w*|убедитесь|убедись|"
         r"solltest|sollten|unbedingt|am besten|achte darauf|vergiss nicht|denk daran|"
         r"tu devrais|vous devriez|il faut|il vaut mieux|mieux vaut|n'oublie pas|n'oubliez pas|pensez à|pense à|"
         r"assure-toi|assurez-vous)\b", 2.5),
        (r"\b(?:prueba|intenta|evita|revisa|guarda|pide|попробуй\w*|проверь\w*|возьми\w*|используй\w*|"
         r"probier\w*|versuch\w*|essaie|essayez|évite[zs]?|vérifie[zs]?)\b", 2),
    ],
}
