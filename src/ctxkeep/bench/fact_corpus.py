"""A deterministic generator of long personal-assistant chats with facts planted in them.

The fact-survival benchmark (:mod:`ctxkeep.bench.survival`) asks which compaction keeps
more of what a conversation established. Each chat is an OpenAI-style list of ``user``
and ``assistant`` messages, 50 to 800 KB, in English or Chinese: the user asks about
cooking, travel, training, history, gardening and money, and the assistant answers at
length — answers full of numbers with units, names, years and places, which a summary
must *not* mistake for what the user told it. Now and then the user mentions something
about their own life in passing, and that is what is planted:

- ``personal``: relatives, where they live, jobs, employers, pets;
- ``number``: rent, weight, distances, counts (written ``1,340`` or ``72.5``);
- ``date``: birthdays, appointments, trips;
- ``name``: the doctor, the landlord, the coach;
- ``preference``: what they cannot eat, the seat they want, the author they read;
- ``changed``: a fact stated once and later changed (moved city, new phone number, an
  appointment moved, a budget raised): only the newer value counts.

The user also states a few standing instructions (``instruction``: units, length, what
never to suggest).

Each plant records its *keywords*: the words that must still be there for the fact to
count as kept (``|`` separates accepted spellings: ``March 14|14 March``). Fact values
come from this module's own pools, disjoint from the pools the assistant's answers use,
so a keyword is found only where its fact was said (the tests check it for every chat of
both corpora). The compactor is never told these pools: it must find the facts by what
they look like.

Everything comes from ``random.Random(seed)``: one spec always gives the same chat.
"""

from __future__ import annotations

import random
import re
import string
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxkeep.bench.corpus import Language

__all__ = [
    "CHAT_CORPORA",
    "ChatSpec",
    "FactChat",
    "PlantedFact",
    "PlantedInstruction",
    "chat_bytes",
    "generate_chat",
    "keyword_found",
]

Message = dict[str, Any]


@dataclass(frozen=True, slots=True)
class ChatSpec:
    """What to generate: one seed, one language, a size in kilobytes of message text."""

    seed: int
    language: Language
    kilobytes: int

    @property
    def name(self) -> str:
        return f"{self.language}-{self.kilobytes}kb-s{self.seed}"


@dataclass(frozen=True, slots=True)
class PlantedFact:
    """A fact the user stated. ``message_index`` holds its current value; a ``changed``
    fact also has the superseded value (``old_keywords`` in ``old_index``)."""

    kind: str
    text: str
    keywords: tuple[str, ...]
    message_index: int
    old_keywords: tuple[str, ...] = ()
    old_index: int | None = None

    @property
    def first_index(self) -> int:
        """The first message that mentions it."""
        return self.message_index if self.old_index is None else self.old_index


@dataclass(frozen=True, slots=True)
class PlantedInstruction:
    """A standing instruction the user stated, and the words that must survive."""

    text: str
    keywords: tuple[str, ...]
    message_index: int


@dataclass(frozen=True, slots=True)
class FactChat:
    """One generated chat and what was planted in it."""

    spec: ChatSpec
    messages: tuple[Message, ...]
    facts: tuple[PlantedFact, ...]
    instructions: tuple[PlantedInstruction, ...]


CHAT_CORPORA: dict[str, tuple[ChatSpec, ...]] = {
    # The test suite's and CI's size: one short chat per language.
    "smoke": (ChatSpec(1, "en", 50), ChatSpec(1, "zh", 50)),
    # The published run: the sizes the issue names (50 to 800 KB), both languages.
    "full": tuple(
        ChatSpec(10 + rank, lang, kb)
        for rank, kb in enumerate((50, 200, 800))
        for lang in ("en", "zh")
    ),
}

FACT_RATE = 0.2
"""The share of user turns that mention a fact of the user's life (about one fact per
8 KB of chat, as a user who talks about their plans now and then)."""
INSTRUCTION_RATE = 0.03
_CHANGE_AFTER = (8, 40)
"""A changed fact is changed this many turns after it was first stated."""


def chat_bytes(messages: Any) -> int:
    """UTF-8 bytes of the messages' text (``content``)."""
    return sum(len(str(m.get("content") or "").encode("utf-8")) for m in messages)


_BOUNDARY = "(?<![0-9A-Za-z]){}(?![0-9A-Za-z])"


def keyword_found(keyword: str, text: str) -> bool:
    """Whether one keyword (any of its ``|`` spellings) is in ``text``: case-insensitive,
    not inside a longer word or number (``14`` is not found in ``140``)."""
    for spelling in keyword.split("|"):
        pattern = _BOUNDARY.format(re.escape(spelling))
        if re.search(pattern, text, re.IGNORECASE):
            return True
    return False


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


# --- the pools: what facts are made of (never used by the assistant's answers) ----------

_EN_FIRST = _words(
    "Priya Tomasz Ingrid Kenji Amara Mateo Siobhan Dmitri Leilani Oskar Farah Benedikt "
    "Yara Caspian Noor Anouk Thiago Marisol Eero Zainab Lorcan Halvard Ines Kwame Solveig "
    "Rafferty Ottilie Emeka Bartek Liesel Anselm Wren Cosima Idris Margit Florin Tamsin "
    "Ysolde Radek Odalys Sander Petronella Jovan Aurelie Teodor Nadia Ilse Bram"
)
_EN_SURNAME = _words(
    "Okafor Lindqvist Haddad Moreau Castellanos Nakamura Brennan Petrov Adeyemi Vasquez "
    "Kowalczyk Abernathy Szabo Delacroix Oyelaran Rasmussen Ferreira Quigley Holloway "
    "Tanaka Mbeki Ostrowski Valdivia Fairbanks Kristiansen Achterberg Marchetti Dunmore "
    "Whitcombe Sorensen Albescu Greenhalgh"
)
_EN_CITIES = _words(
    "Lisbon Tallinn Porto Ljubljana Bergen Valencia Gdansk Montreal Adelaide Wellington "
    "Cork Bratislava Tampere Leipzig Aarhus Halifax Hobart Trondheim Bilbao Graz Utrecht "
    "Dunedin Winnipeg Toulouse Gothenburg Krakow Zagreb Antwerp Nantes Innsbruck"
)
_EN_JOBS = (
    "radiologist", "structural engineer", "pastry chef", "court interpreter",
    "veterinary nurse", "air traffic controller", "marine biologist", "piano tuner",
    "actuary", "cartographer", "speech therapist", "sound engineer",
)  # fmt: skip
_EN_FIRMS_A = _words(
    "Brightwater Halcyon Northgate Copperleaf Bluestem Ironbark Silverline Redfern"
)
_EN_FIRMS_B = _words("Analytics Robotics Logistics Dental Biotech Insurance Studios Acoustics")
_EN_PETS = _words(
    "Biscuit Mochi Juniper Waffles Pickles Clementine Noodle Pretzel Marmalade Gizmo "
    "Bramble Nutmeg Dumpling Sprocket Truffle Pippin Custard"
)
_EN_BREEDS = ("beagle", "corgi", "greyhound", "Maine Coon", "dachshund", "Siamese cat")
_EN_DISLIKES = (
    "cilantro", "olives", "eggplant", "blue cheese", "anchovies", "licorice", "okra",
    "beetroot", "capers", "sardines", "tofu skin", "marzipan",
)  # fmt: skip
_EN_AUTHORS = (
    "Ursula Le Guin", "Tove Jansson", "Italo Calvino", "Octavia Butler", "Kazuo Ishiguro",
    "Olga Tokarczuk", "Chinua Achebe", "Clarice Lispector", "Halldor Laxness",
)  # fmt: skip
_MONTHS = _words(
    "January February March April May June July August September October November December"
)

_ZH_SURNAME = _words(
    "欧阳 司马 诸葛 上官 慕容 令狐 皇甫 尉迟 东方 南宫 夏侯 公孙 长孙 宇文 轩辕 端木 "
    "独孤 百里 呼延 钟离 闻人 拓跋 澹台 太史"
)
_ZH_GIVEN = _words(
    "若溪 一鸣 晓雨 思远 雨桐 子墨 嘉怡 浩然 梦琪 振宇 书瑶 明哲 欣然 俊熙 语嫣 泽楷"
)
_ZH_CITIES = _words(
    "厦门 大理 青岛 苏州 哈尔滨 昆明 桂林 烟台 珠海 洛阳 扬州 丽江 威海 泉州 景德镇 乌鲁木齐"
)
_ZH_JOBS = (
    "放射科医生",
    "结构工程师",
    "甜点师",
    "法庭口译员",
    "兽医助理",
    "空中交通管制员",
    "海洋生物学家",
    "钢琴调音师",
)
_ZH_FIRMS = (
    "澄水分析",
    "北门机器人",
    "铜叶物流",
    "蓝茎牙科",
    "铁木保险",
    "银线声学",
    "红蕨生物",
    "晨岚工作室",
)
_ZH_PETS = _words("豆包 年糕 汤圆 可乐 芝麻 布丁 雪球 花卷 奶昔 栗子 麻薯 饭团")
_ZH_DISLIKES = ("香菜", "榴莲", "苦瓜", "茄子", "臭豆腐", "芹菜", "羊肉", "皮蛋")
_ZH_AUTHORS = ("村上春树", "卡尔维诺", "张爱玲", "沈从文", "汪曾祺", "萧红", "博尔赫斯")


# --- the assistant's answers and the user's questions (the distractors) ----------------

_EN_TOPICS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "cooking": (
        (
            "How long should I bake {dish}?",
            "Can you give me a recipe for {dish} for {n} people?",
            "What can I use instead of {ingredient} in {dish}?",
            "Why does my {dish} always come out dry?",
        ),
        (
            "Preheat the oven to {temp} °C and bake for {mins} minutes.",
            "You will need {grams} g of {ingredient} and {n} eggs.",
            "- {grams} g {ingredient}",
            "Let the dough rest for {mins} minutes before shaping it.",
            "{chef} popularised this method in the {decade}s.",
            "A {n}-quart Dutch oven holds the heat better than a thin pan.",
            "Salt at {pct}% of the flour weight is the usual ratio.",
            "If it browns too fast, lower the heat to {temp2} °C for the last {mins2} minutes.",
        ),
    ),
    "travel": (
        (
            "What should I see in {place} in two days?",
            "Is {landmark} worth the queue?",
            "How do I get from the airport to the centre of {place}?",
            "Which area of {place} is best to stay in?",
        ),
        (
            "The {landmark} opens at {hour}:00 and tickets cost {price} euros.",
            "Day {n}: start at the {landmark}, then walk about {km} km along the river.",
            "The airport train to {place} takes {mins} minutes and runs every {n2} minutes.",
            "- {landmark}: allow {n} hours",
            "{place} gets about {mm} mm of rain a year, so pack a light jacket.",
            "The old town was rebuilt after the fire of {year}.",
            "A {n}-day transit pass costs around {price} euros and covers the trams.",
            "Most museums in {place} close on the first day of the week.",
        ),
    ),
    "training": (
        (
            "How do I train for a {km} km run?",
            "How many sets of {exercise} should I do?",
            "Is it fine to do {exercise} every day?",
            "What should I eat before a long ride?",
        ),
        (
            "Start with {n} sets of {reps} reps of {exercise} and add {kg2} kg a week.",
            "Run {km} km at an easy pace {n} times a week for the first {weeks} weeks.",
            "- {exercise}: {n} x {reps}",
            "Rest {secs} seconds between sets.",
            "{coach} built the first interval plans in the {decade}s.",
            "Aim for about {grams} g of carbohydrate per hour on rides over {n2} hours.",
            "A heart rate near {bpm} bpm is a good ceiling for easy runs.",
            "Stretch your calves for {secs} seconds after every run.",
        ),
    ),
    "history": (
        (
            "Who built {monument}?",
            "Why did {empire} fall?",
            "What happened in {year}?",
            "Tell me about {person}.",
        ),
        (
            "{person} was born in {year} and is best known for work on {subject}.",
            "{monument} took about {n} years to build and is {m} m tall.",
            "In {year} the {empire} controlled roughly {n2} million people.",
            "- {year}: {person} publishes a study of {subject}",
            "Historians still debate the numbers: estimates run from {n} to {n3} thousand.",
            "{person} corresponded with {person2} for {n} years.",
            "The {empire} minted coins of {grams} g of silver.",
            "By {year2} the city had grown to {n} thousand people.",
        ),
    ),
    "garden": (
        (
            "When should I plant {plant}?",
            "Why are the leaves of my {plant} turning yellow?",
            "How often should I water {plant}?",
            "Can {plant} grow on a balcony?",
        ),
        (
            "Sow {plant} about {cm} cm deep and {cm2} cm apart.",
            "Water every {n} days, roughly {litres} litres per square metre.",
            "- {plant}: {hours} hours of sun",
            "Keep the soil between {temp} and {temp2} °C for germination.",
            "{botanist} described the species in {year}.",
            "A pH of {ph} suits it best.",
            "Feed it every {weeks} weeks with a {n}-{n2}-{n3} fertiliser.",
            "Prune back by a third once it reaches {cm} cm.",
        ),
    ),
    "money": (
        (
            "How much should I keep in an emergency fund?",
            "Is an index fund better than {asset}?",
            "How does compound interest work over {n} years?",
            "Should I pay off my loan early?",
        ),
        (
            "At {pct}% a year, {price} grows to about {price2} in {n} years.",
            "Keep {n} months of expenses in cash before investing.",
            "- {asset}: fees around {pct}%",
            "The {index} returned about {pct2}% a year on average since {year}.",
            "{economist} argued this in {year2}.",
            "A {n}-year fixed rate costs more but protects you from rises.",
            "Rebalance once a year, or when a holding drifts {pct}% from its target.",
            "Fees of {pct}% compound too: over {n2} years they eat a large share.",
        ),
    ),
}
_EN_FILL: dict[str, tuple[str, ...]] = {
    "dish": ("sourdough bread", "lasagne", "banana bread", "shepherd's pie", "focaccia", "paella"),
    "ingredient": ("butter", "buttermilk", "flour", "honey", "parmesan", "yeast", "cream"),
    "chef": ("Julia Child", "Auguste Escoffier", "Marcella Hazan", "Ken Hom", "Paul Bocuse"),
    "place": ("Paris", "Rome", "Vienna", "Prague", "Amsterdam", "Berlin", "Tokyo", "Seville"),
    "landmark": ("Louvre", "Colosseum", "Belvedere", "Charles Bridge", "Rijksmuseum", "Alhambra"),
    "exercise": ("squats", "deadlifts", "lunges", "push-ups", "rows", "planks"),
    "coach": ("Arthur Lydiard", "Jack Daniels", "Percy Cerutty", "Woldemar Gerschler"),
    "monument": ("the Pantheon", "Hagia Sophia", "the Great Wall", "Angkor Wat", "Petra"),
    "empire": ("Roman Empire", "Byzantine Empire", "Ottoman Empire", "Mughal Empire"),
    "person": ("Ada Lovelace", "Isaac Newton", "Marie Curie", "Charles Darwin", "Ibn Battuta"),
    "person2": ("Gottfried Leibniz", "Michael Faraday", "Alexander Humboldt", "Voltaire"),
    "subject": ("optics", "calculus", "radioactivity", "botany", "navigation", "magnetism"),
    "plant": ("tomatoes", "basil", "lavender", "courgettes", "runner beans", "rosemary"),
    "botanist": ("Carl Linnaeus", "Joseph Hooker", "Asa Gray", "Augustin de Candolle"),
    "asset": ("gold", "bonds", "property", "a savings account", "dividend stocks"),
    "index": ("S&P 500", "FTSE 100", "MSCI World", "Nikkei 225"),
    "economist": ("John Bogle", "Burton Malkiel", "Eugene Fama", "Harry Markowitz"),
}

_ZH_TOPICS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "cooking": (
        (
            "{dish}要烤多久？",
            "能给我一个{n}人份的{dish}做法吗？",
            "做{dish}没有{ingredient}可以用什么代替？",
        ),
        (
            "烤箱预热到{temp}度，烤{mins}分钟。",
            "需要{grams}克{ingredient}和{n}个鸡蛋。",
            "- {ingredient}：{grams}克",
            "面团要醒{mins}分钟再整形。",
            "这种做法是{chef}在{decade}年代推广开的。",
            "盐一般是面粉重量的{pct}%。",
        ),
    ),
    "travel": (
        ("去{place}玩两天应该看什么？", "{landmark}值得排队吗？", "从机场怎么去{place}市区？"),
        (
            "{landmark}早上{hour}点开门，门票{price}元。",
            "第{n}天：先去{landmark}，然后沿河走大约{km}公里。",
            "从机场坐地铁到{place}市区要{mins}分钟。",
            "- {landmark}：建议留{n}个小时",
            "{place}的老城在{year}年大火之后重建。",
            "{n}日交通卡大约{price}元。",
        ),
    ),
    "training": (
        ("怎么准备{km}公里跑？", "{exercise}做几组合适？", "每天都做{exercise}可以吗？"),
        (
            "先做{n}组，每组{reps}次{exercise}，每周加{kg2}公斤。",
            "前{weeks}周每周轻松跑{n}次，每次{km}公里。",
            "- {exercise}：{n}组 x {reps}次",
            "组间休息{secs}秒。",
            "心率控制在{bpm}以下比较合适。",
        ),
    ),
    "history": (
        ("{monument}是谁建的？", "{empire}为什么衰落？", "讲讲{person}吧。"),
        (
            "{person}生于{year}年，最有名的是关于{subject}的研究。",
            "{monument}修了大约{n}年，高{m}米。",
            "{year}年{empire}统治着大约{n2}百万人口。",
            "- {year}年：{person}发表了关于{subject}的著作",
            "{person}和{person2}通信了{n}年。",
        ),
    ),
    "garden": (
        ("{plant}什么时候种？", "我的{plant}叶子发黄怎么办？", "{plant}多久浇一次水？"),
        (
            "{plant}播种深度约{cm}厘米，株距{cm2}厘米。",
            "每{n}天浇一次水，每平方米大约{litres}升。",
            "- {plant}：每天{hours}小时日照",
            "发芽温度保持在{temp}到{temp2}度之间。",
            "土壤pH值{ph}左右最好。",
        ),
    ),
    "money": (
        ("应急资金留多少合适？", "指数基金比{asset}好吗？", "{n}年的复利是怎么算的？"),
        (
            "年化{pct}%的话，{price}元{n}年后大约变成{price2}元。",
            "先留{n}个月的开支做现金储备。",
            "- {asset}：费率约{pct}%",
            "{index}自{year}年以来年均回报约{pct2}%。",
            "{economist}在{year2}年提出过这个观点。",
        ),
    ),
}
_ZH_FILL: dict[str, tuple[str, ...]] = {
    "dish": ("红烧肉", "葱油饼", "蛋糕", "包子", "饺子", "披萨"),
    "ingredient": ("黄油", "面粉", "蜂蜜", "酵母", "淡奶油", "白糖"),
    "chef": ("袁枚", "梁实秋", "王世襄"),
    "place": ("北京", "上海", "西安", "成都", "杭州", "南京", "广州"),
    "landmark": ("故宫", "外滩", "兵马俑", "宽窄巷子", "西湖", "中山陵"),
    "exercise": ("深蹲", "硬拉", "俯卧撑", "平板支撑", "划船"),
    "monument": ("赵州桥", "应县木塔", "大雁塔", "都江堰"),
    "empire": ("唐朝", "宋朝", "元朝", "明朝"),
    "person": ("李白", "杜甫", "苏轼", "沈括", "郑和", "徐霞客"),
    "person2": ("王安石", "范仲淹", "黄庭坚", "曾巩"),
    "subject": ("天文", "水利", "地理", "医学", "诗歌"),
    "plant": ("番茄", "罗勒", "薰衣草", "黄瓜", "辣椒"),
    "asset": ("黄金", "债券", "房产", "定期存款"),
    "index": ("沪深300", "标普500", "恒生指数"),
    "economist": ("凯恩斯", "弗里德曼", "萨缪尔森"),
}


def _numbers(rng: random.Random) -> dict[str, str]:
    """Fresh numbers for one answer: small integers, never with a thousands comma or a
    decimal point (facts use those)."""
    return {
        "n": str(rng.randint(2, 9)),
        "n2": str(rng.randint(2, 12)),
        "n3": str(rng.randint(10, 90)),
        "m": str(rng.randint(12, 140)),
        "temp": str(rng.choice((160, 170, 180, 190, 200, 220))),
        "temp2": str(rng.choice((15, 18, 20, 24, 150, 165))),
        "mins": str(rng.choice((10, 12, 15, 20, 25, 30, 40, 45))),
        "mins2": str(rng.choice((5, 8, 10))),
        "grams": str(rng.choice((50, 80, 100, 120, 200, 250, 300, 500))),
        "pct": str(rng.randint(1, 9)),
        "pct2": str(rng.randint(4, 11)),
        "hour": str(rng.randint(8, 10)),
        "price": str(rng.choice((12, 15, 18, 20, 25, 30, 45, 60, 100, 500))),
        "price2": str(rng.choice((160, 240, 320, 480, 960))),
        "km": str(rng.choice((3, 5, 8, 10, 21, 42))),
        "mm": str(rng.randint(400, 900)),
        "year": str(rng.randint(1100, 1960)),
        "year2": str(rng.randint(1700, 1990)),
        "decade": str(rng.choice((1950, 1960, 1970, 1980))),
        "reps": str(rng.choice((5, 8, 10, 12, 15))),
        "kg2": str(rng.choice((1, 2, 5))),
        "weeks": str(rng.randint(2, 8)),
        "secs": str(rng.choice((30, 45, 60, 90, 120))),
        "bpm": str(rng.choice((130, 140, 145, 150))),
        "cm": str(rng.randint(1, 40)),
        "cm2": str(rng.randint(20, 60)),
        "litres": str(rng.randint(5, 25)),
        "hours": str(rng.randint(4, 8)),
        "ph": str(rng.choice((6, 7))),
    }


# --- the plants --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Slot:
    """One thing about the user's life, said in one sentence. Each slot is said once per
    chat (a second value for the same thing would be a change, which ``_Change`` plants
    on purpose). Every ``{field}`` of the template is a keyword; ``{v}`` is a number drawn
    from ``number`` = (low, high, step, one decimal)."""

    kind: str
    template: str
    number: tuple[int, int, int, bool] | None = None


@dataclass(frozen=True, slots=True)
class _Change:
    """A fact stated, then changed some turns later (the same fields, new values)."""

    kind: str
    first: str
    later: str
    number: tuple[int, int, int, bool] | None = None
    later_number: tuple[int, int, int, bool] | None = None


def _slots(kind: str, *templates: str) -> tuple[_Slot, ...]:
    return tuple(_Slot(kind, t) for t in templates)


_EN_SLOTS: tuple[_Slot, ...] = (
    *_slots(
        "personal",
        *(
            f"By the way, my {who} {{name}} lives in {{city}} these days."
            for who in (
                "sister",
                "brother",
                "cousin",
                "best friend",
                "aunt",
                "uncle",
                "grandmother",
                "niece",
                "nephew",
                "godfather",
            )
        ),
        "For context, I work as a {job}.",
        "My wife works as a {job}, so she knows the field.",
        "My partner just started at a company called {firm}.",
        "Our dog is called {pet}, in case I mention him.",
        "I grew up in {city}, so I know the area a little.",
        "My son {name} just started school this year.",
    ),
    _Slot(
        "number",
        "Our rent is {v} euros a month, which limits things a bit.",
        (2050, 3900, 10, False),
    ),
    _Slot("number", "I weigh {v} kg at the moment.", (520, 980, 1, True)),
    _Slot("number", "My commute is {v} km each way.", (114, 689, 1, True)),
    _Slot("number", "I have been averaging {v} steps a day.", (4000, 19000, 50, False)),
    _Slot("number", "We have put aside {v} dollars for the holidays.", (2000, 9800, 50, False)),
    _Slot("number", "Our flat is {v} square metres, so space is tight.", (412, 987, 1, True)),
    _Slot("number", "The car has done {v} km since we bought it.", (12000, 98000, 100, False)),
    _Slot("number", "Our electricity bill came to {v} euros last month.", (804, 2399, 1, True)),
    _Slot("number", "My son's school fees are {v} pounds a term.", (2000, 9800, 50, False)),
    _Slot("number", "The quote for the new roof was {v} euros.", (4000, 19000, 50, False)),
    _Slot("number", "Our car uses {v} litres per 100 km.", (48, 99, 1, True)),
    *_slots(
        "date",
        "Also, my daughter's birthday is on {d}.",
        "Also, my dentist appointment is on {d}.",
        "Also, we fly out on {d}.",
        "Also, my sister's wedding is on {d}.",
        "Also, the lease on our flat ends on {d}.",
        "My son's birthday is on {d}, he wants a party.",
        "My passport expires on {d}, I should renew it.",
        "Our wedding anniversary is on {d}.",
        "My mother's birthday is on {d}.",
        "My job interview is on {d}, wish me luck.",
        "My driving test is booked for {d}.",
    ),
    *_slots(
        "name",
        "My doctor is Dr {surname}, and she is very strict about salt.",
        "Our landlord, Mr {surname}, wants the garden kept tidy.",
        "My running coach is called {surname}.",
        "My manager, Ms {surname}, signs off on my holidays.",
        "My daughter's piano teacher is Mrs {surname}.",
        "Our accountant is a man called {surname}.",
        "The vet we trust is Dr {surname}.",
        "My son's teacher this year is Mr {surname}.",
    ),
    *(_Slot("preference", "I really can't eat {food}, it makes me ill.") for _ in range(8)),
    *_slots(
        "preference",
        "My favourite writer is {author}, if that helps.",
        "I always want an aisle seat on planes.",
        "My favourite band is {band}, I have seen them live twice.",
        "I take my coffee with oat milk, never with sugar.",
    ),
)
_EN_CHANGES: tuple[_Change, ...] = (
    _Change(
        "personal",
        "We live in {city}, so keep that in mind for anything local.",
        "Quick update: we have moved from there to {city} now, the move went fine.",
    ),
    _Change(
        "number",
        "If you draft messages for me, my phone number is 555-{v}.",
        "I got a new phone, the number is 555-{v} from today.",
        (2000, 9999, 1, False),
    ),
    _Change(
        "date",
        "My knee surgery is scheduled for {d}.",
        "The hospital moved my knee surgery, it is now on {d}.",
    ),
    _Change(
        "number",
        "For the renovation we can spend {v} pounds at most.",
        "We sold the old car, so the renovation budget is {v} pounds instead.",
        (2000, 4000, 50, False),
        (4100, 7000, 50, False),
    ),
    _Change(
        "name",
        "My team lead is {surname}, she approves my expenses.",
        "There was a reshuffle at work: my new team lead is {surname}.",
    ),
    _Change(
        "number",
        "The gym costs me {v} euros a month.",
        "The gym raised its price, it is {v} euros a month now.",
        (211, 399, 1, True),
        (401, 599, 1, True),
    ),
)

_ZH_SLOTS: tuple[_Slot, ...] = (
    *_slots(
        "personal",
        *(
            f"对了，我{who}{{name}}现在住在{{city}}。"
            for who in ("妹妹", "哥哥", "表姐", "好朋友", "姑姑", "舅舅", "外婆", "侄子")
        ),
        "说一下背景，我是做{job}的。",
        "我爱人是{job}，这方面她比较懂。",
        "我家的狗叫{pet}，以后我提到它你就知道了。",
        "我是在{city}长大的，那边比较熟。",
    ),
    _Slot("number", "我们每个月房租{v}元，所以预算有限。", (2300, 9800, 10, False)),
    _Slot("number", "我现在体重{v}公斤。", (420, 980, 1, True)),
    _Slot("number", "我单程通勤{v}公里。", (114, 689, 1, True)),
    _Slot("number", "我最近平均每天走{v}步。", (4000, 19000, 50, False)),
    _Slot("number", "我们家上个月电费{v}元。", (804, 2399, 1, True)),
    _Slot("number", "我们的车已经开了{v}公里。", (12000, 98000, 100, False)),
    _Slot("number", "儿子一学期的学费是{v}元。", (20000, 98000, 500, False)),
    _Slot("number", "我们家的房子是{v}平方米。", (412, 987, 1, True)),
    *_slots(
        "date",
        "另外，我女儿的生日是{d}。",
        "另外，我的牙医预约在{d}。",
        "另外，我们{d}出发。",
        "另外，我姐姐的婚礼在{d}。",
        "我们的租约{d}到期。",
        "我儿子的生日是{d}，他想办个聚会。",
        "我的护照{d}到期，得去续办。",
        "我们的结婚纪念日是{d}。",
        "我妈妈的生日是{d}。",
        "我的面试安排在{d}。",
    ),
    *_slots(
        "name",
        "我的医生是{surname}大夫，她对盐控制得很严。",
        "我们房东姓{surname}，他要求院子保持整洁。",
        "我的跑步教练姓{surname}。",
        "我的经理是{surname}经理，请假要她批。",
        "女儿的钢琴老师是{surname}老师。",
        "我们的会计姓{surname}。",
    ),
    *(_Slot("preference", "我实在吃不了{food}，一吃就难受。") for _ in range(6)),
    *_slots(
        "preference",
        "我最喜欢的作家是{author}。",
        "我喝咖啡只加燕麦奶，从来不加糖。",
        "坐飞机我一定要靠过道的座位。",
    ),
)
_ZH_CHANGES: tuple[_Change, ...] = (
    _Change(
        "personal",
        "我们住在{city}，推荐本地的东西时请考虑这一点。",
        "更新一下：我们已经从那边搬到{city}了，一切顺利。",
    ),
    _Change(
        "number",
        "帮我写消息的话，我的手机尾号是{v}。",
        "我换了新手机，尾号改成{v}了。",
        (2000, 9999, 1, False),
    ),
    _Change("date", "我的膝盖手术定在{d}。", "医院把我的膝盖手术改到了{d}。"),
    _Change(
        "number",
        "装修预算最多{v}元。",
        "旧车卖掉了，装修预算改成{v}元。",
        (20000, 40000, 500, False),
        (41000, 70000, 500, False),
    ),
)

_EN_BANDS = ("Radiohead", "Fleetwood Mac", "Portishead", "Khruangbin", "Los Lobos", "Sigur Ros")
_KEYWORD_PHRASES = {
    "I always want an aisle seat on planes.": ("aisle seat",),
    "I take my coffee with oat milk, never with sugar.": ("oat milk",),
    "我喝咖啡只加燕麦奶，从来不加糖。": ("燕麦奶",),
    "坐飞机我一定要靠过道的座位。": ("过道",),
}
"""The keywords of slots that have no field: the words that carry the fact."""


@dataclass
class _Pools:
    """Fact values, drawn without replacement so every value is said of one fact only."""

    rng: random.Random
    zh: bool
    used_numbers: set[str] = field(default_factory=set)
    drawn: dict[str, list[Any]] = field(default_factory=dict)

    def draw(self, name: str, values: Sequence[Any]) -> Any | None:
        left = self.drawn.get(name)
        if left is None:
            left = self.drawn[name] = list(values)
            self.rng.shuffle(left)
        return left.pop() if left else None

    def number(self, spec: tuple[int, int, int, bool]) -> tuple[str, str]:
        """(text, keyword) of a value no other fact uses: one decimal, or (English) a
        thousands comma, which the keyword also accepts without."""
        low, high, step, decimals = spec
        while True:
            value = self.rng.randrange(low, high, step)
            if decimals:
                text = f"{value / 10:.1f}"
            elif value >= 1000 and not self.zh:
                text = f"{value:,}"
            else:
                text = str(value)
            if text not in self.used_numbers:
                self.used_numbers.add(text)
                plain = text.replace(",", "")
                return text, text if plain == text else f"{text}|{plain}"

    def date(self) -> tuple[str, str]:
        """(text, keyword) of a day of the year no other fact uses."""
        while True:
            month = self.rng.randrange(12)
            day = self.rng.randint(3, 28)
            key = f"{month}/{day}"
            if key in self.used_numbers:
                continue
            self.used_numbers.add(key)
            if self.zh:
                text = f"{month + 1}月{day}日"
                return text, f"{text}|{month + 1}月{day}号"
            name = _MONTHS[month]
            return f"{name} {day}", f"{name} {day}|{day} {name}|{name} {day}th"

    def value(self, name: str, number: tuple[int, int, int, bool] | None) -> tuple[str, str] | None:
        """(text, keyword) for one field of a template; None when its pool is spent."""
        if name == "d":
            return self.date()
        if name == "v":
            assert number is not None
            return self.number(number)
        if name == "name" and self.zh:
            surname = self.draw("surname", _ZH_SURNAME)
            given = self.draw("given", _ZH_GIVEN)
            drawn = None if surname is None or given is None else surname + given
        else:
            drawn = self.draw(name, _POOLS[("zh" if self.zh else "en", name)])
        return None if drawn is None else (drawn, drawn)

    def fill(self, template: str, number: tuple[int, int, int, bool] | None) -> Plant | None:
        """The template with fresh values, and its keywords; None when a pool is spent."""
        values: dict[str, str] = {}
        keywords: list[str] = []
        for _literal, name, _spec, _conv in string.Formatter().parse(template):
            if name is None:
                continue
            found = self.value(name, number)
            if found is None:
                return None
            values[name] = found[0]
            keywords.append(found[1])
        text = template.format(**values)
        return text, tuple(keywords) or _KEYWORD_PHRASES[template]


_POOLS: dict[tuple[str, str], tuple[str, ...]] = {
    ("en", "name"): _EN_FIRST,
    ("en", "surname"): _EN_SURNAME,
    ("en", "city"): _EN_CITIES,
    ("en", "job"): _EN_JOBS,
    ("en", "firm"): tuple(f"{a} {b}" for a in _EN_FIRMS_A for b in _EN_FIRMS_B),
    ("en", "pet"): _EN_PETS,
    ("en", "food"): _EN_DISLIKES,
    ("en", "author"): _EN_AUTHORS,
    ("en", "band"): _EN_BANDS,
    ("zh", "surname"): _ZH_SURNAME,
    ("zh", "city"): _ZH_CITIES,
    ("zh", "job"): _ZH_JOBS,
    ("zh", "pet"): _ZH_PETS,
    ("zh", "food"): _ZH_DISLIKES,
    ("zh", "author"): _ZH_AUTHORS,
}

Plant = tuple[str, tuple[str, ...]]
"""(sentence, keywords)."""

_SLOTS: dict[Language, tuple[_Slot, ...]] = {"en": _EN_SLOTS, "zh": _ZH_SLOTS}
_CHANGES: dict[Language, tuple[_Change, ...]] = {"en": _EN_CHANGES, "zh": _ZH_CHANGES}

_INSTRUCTIONS: dict[Language, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "en": (
        ("Please always give temperatures in Fahrenheit from now on.", ("Fahrenheit",)),
        ("Never suggest anything with peanuts, I am allergic.", ("peanuts",)),
        ("Keep your answers under 150 words unless I ask for detail.", ("150 words",)),
        ("Don't recommend Airbnb, we only book hotels.", ("Airbnb",)),
        ("Always give distances in miles, not kilometres.", ("miles",)),
        ("Do not use bullet points in your replies, write plain paragraphs.", ("bullet points",)),
    ),
    "zh": (
        ("以后温度请一律用华氏度。", ("华氏",)),
        ("千万不要推荐含花生的东西，我对花生过敏。", ("花生",)),
        ("回答请控制在150字以内，除非我要求详细说明。", ("150字",)),
        ("不要推荐民宿，我们只住酒店。", ("民宿",)),
        ("距离请一律用英里表示。", ("英里",)),
    ),
}


# --- the writer ----------------------------------------------------------------------------


class _Writer:
    """Writes one chat turn by turn, recording what it plants."""

    def __init__(self, spec: ChatSpec) -> None:
        self.spec = spec
        self.rng = random.Random(spec.seed * 7919 + (0 if spec.language == "en" else 1))
        self.zh = spec.language == "zh"
        self.pools = _Pools(self.rng, self.zh)
        self.messages: list[Message] = []
        self.size = 0
        self.facts: list[PlantedFact] = []
        self.instructions: list[PlantedInstruction] = []
        self.changes: list[tuple[int, str, Plant, Plant, int]] = []
        self.turn = 0
        left = list(_INSTRUCTIONS[spec.language])
        self.rng.shuffle(left)
        self.instructions_left = left

    def say(self, role: str, text: str) -> int:
        self.messages.append({"role": role, "content": text})
        self.size += len(text.encode("utf-8"))
        return len(self.messages) - 1

    def _topic(self) -> tuple[tuple[str, ...], tuple[str, ...], dict[str, tuple[str, ...]]]:
        topics = _ZH_TOPICS if self.zh else _EN_TOPICS
        name = self.rng.choice(sorted(topics))
        questions, sentences = topics[name]
        return questions, sentences, (_ZH_FILL if self.zh else _EN_FILL)

    def _fill(self, template: str, fill: dict[str, tuple[str, ...]]) -> str:
        values: dict[str, str] = _numbers(self.rng)
        for key, options in fill.items():
            values[key] = self.rng.choice(options)
        return template.format(**values)

    def answer(self, sentences: tuple[str, ...], fill: dict[str, tuple[str, ...]]) -> str:
        """A long answer: paragraphs of topic sentences and a list (600 to 2,500 bytes)."""
        goal = self.rng.randint(600, 2500)
        paragraphs: list[str] = []
        size = 0
        while size < goal:
            lines = [self._fill(s, fill) for s in self.rng.sample(sentences, 4)]
            listed = [line for line in lines if line.startswith("- ")]
            prose = [line for line in lines if not line.startswith("- ")]
            joiner = "" if self.zh else " "
            block = joiner.join(prose) + ("\n" + "\n".join(listed) if listed else "")
            paragraphs.append(block)
            size += len(block.encode("utf-8"))
        return "\n\n".join(paragraphs)

    def _plant_fact(self, question: str) -> str:
        language = self.spec.language
        if self.rng.random() < 0.2:
            change = self.pools.draw("change", _CHANGES[language])
            if change is not None:
                first = self.pools.fill(change.first, change.number)
                later = self.pools.fill(change.later, change.later_number or change.number)
                if first is not None and later is not None:
                    due = self.turn + self.rng.randint(*_CHANGE_AFTER)
                    self.changes.append((due, change.kind, first, later, len(self.messages)))
                    return self._join(first[0], question)
        for _attempt in range(4):
            slot = self.pools.draw("slot", _SLOTS[language])
            if slot is None:
                return question
            planted = self.pools.fill(slot.template, slot.number)
            if planted is not None:
                text, keywords = planted
                self.facts.append(PlantedFact(slot.kind, text, keywords, len(self.messages)))
                return self._join(text, question)
        return question

    def _join(self, sentence: str, question: str) -> str:
        joiner = "" if self.zh else " "
        if self.rng.random() < 0.5:
            return sentence + joiner + question
        return question + joiner + sentence

    def user_turn(self, question: str) -> str:
        due = [c for c in self.changes if c[0] <= self.turn]
        if due:
            _due, _kind, (_first, old_k), (later, new_k), first_index = due[0]
            self.changes.remove(due[0])
            self.facts.append(
                PlantedFact("changed", later, new_k, len(self.messages), old_k, first_index)
            )
            return self._join(later, question)
        roll = self.rng.random()
        if roll < FACT_RATE:
            return self._plant_fact(question)
        if roll < FACT_RATE + INSTRUCTION_RATE and self.instructions_left:
            text, keywords = self.instructions_left.pop()
            self.instructions.append(PlantedInstruction(text, keywords, len(self.messages)))
            return self._join(text, question)
        return question

    def write(self) -> FactChat:
        goal = self.spec.kilobytes * 1000
        while self.size < goal:
            questions, sentences, fill = self._topic()
            question = self._fill(self.rng.choice(questions), fill)
            self.say("user", self.user_turn(question))
            self.say("assistant", self.answer(sentences, fill))
            self.turn += 1
        for _due, kind, (first, keywords), _later, index in self.changes:
            self.facts.append(PlantedFact(kind, first, keywords, index))
        return FactChat(
            self.spec,
            tuple(self.messages),
            tuple(sorted(self.facts, key=lambda f: f.message_index)),
            tuple(self.instructions),
        )


def generate_chat(spec: ChatSpec) -> FactChat:
    """The chat of ``spec`` with its planted facts and instructions (deterministic)."""
    return _Writer(spec).write()
