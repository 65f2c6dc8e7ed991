"""Room names beyond English: a Chinese chat is named by its noun phrase, not a clause; Spanish and
Russian stop words never name a room; a Chinese speaker's name never does; a room's name in its other
languages is an alias that finds it (core, CLI)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import stopwordsiso
from click.testing import CliRunner

from _cli import as_json
from mempalace.cli import main
from mempalace.language.languages import words_in
from mempalace.rooms.part_phrases import read_part
from mempalace.rooms.naming import PhraseTally, RoomChooser
from mempalace.rooms.choice import TopicRooms
from mempalace.models import DrawerDraft
from mempalace.palace.palace import Palace

UPGRADE = ["我们下周要做数据库升级，从 MySQL 5.7 升到 8.0，王建国负责。你觉得数据库升级之前要准备什么？",
           "数据库升级之前一定要先做全量备份，然后在测试环境演练一遍数据库升级，确认回滚方案。",
           "王建国说数据库升级的时候业务要停机两个小时，周末晚上做比较好。",
           "好的，那我们就定在周六晚上做数据库升级，王建国和我一起值班。"]
MORTGAGE = ["Como te dije, la hipoteca del piso nos cuesta mucho, pero si bajamos el plazo, ¿cómo queda la cuota?",
            "Si amortizas la hipoteca ahora, la cuota baja, pero como el interés es variable, para ti es mejor esperar.",
            "¿Y si cambiamos la hipoteca a tipo fijo? Es que como está todo, no sé si es para tanto.",
            "Para una hipoteca de tipo fijo el banco pide una comisión, pero como vas a vivir allí muchos años, compensa."]
LEAK = ["Если честно, у нас на кухне протечка: говорит соседка снизу, что у неё потолок мокрый.",
        "Если протечка под мойкой, перекройте воду и вызовите сантехника, он говорит, что это быстро.",
        "Сантехник говорит, что протечка из-за старой трубы, если её не заменить, будет хуже.",
        "Если протечка повторится, составьте акт с управляющей компанией, так говорит юрист."]
UPGRADE_ES = ["La actualización de la base de datos es el sábado por la noche.",
              "Antes de la actualización de la base de datos hacemos una copia completa.",
              "La actualización de la base de datos necesita dos horas sin servicio."]


def test_a_chinese_conversation_is_named_by_its_noun_phrase_not_a_clause() -> None:
    assert RoomChooser([]).choose(UPGRADE, names=["王建国"]) == "数据库升级"


def test_spanish_and_russian_stop_words_never_name_a_room() -> None:
    for texts, language, topic in ((MORTGAGE, "es", "hipoteca"), (LEAK, "ru", "протечка")):
        name = RoomChooser([]).choose(texts)
        assert name == topic, name
        assert not set(name.split("-")) & set(stopwordsiso.stopwords(language))


def test_a_chinese_speakers_name_never_names_a_room() -> None:
    said = ["王建国：王建国负责周六的数据库升级值班。", "王建国：数据库升级的计划王建国来写。", "王建国说数据库升级要停机。"]
    name = RoomChooser([]).choose(said, names=["王建国"])
    assert "王建国" not in name and name == "数据库升级", name
    mentioned = ["张伟说张伟明天来。", "张伟和张伟的同事讨论报销系统。", "张伟问报销系统什么时候上线？"]
    assert "张伟" not in RoomChooser([]).choose(mentioned)


def test_a_rooms_names_in_its_other_languages_are_its_aliases() -> None:
    vector = np.random.default_rng(0).normal(size=(1, 16)).astype(np.float32)
    rooms = TopicRooms(RoomChooser([]))
    chinese = rooms.assign("wing_zh", np.repeat(vector, len(UPGRADE), 0), UPGRADE, names=["王建国"])
    spanish = rooms.assign("wing_es", np.repeat(vector, len(UPGRADE_ES), 0), UPGRADE_ES)
    rooms.settle_names()
    assert set(chinese) == set(spanish) == {"数据库升级"}  # most of its drawers are Chinese
    assert rooms.aliases["数据库升级"] == ("actualizacion",)
    tally = PhraseTally([read_part(UPGRADE), read_part(UPGRADE_ES)])
    assert RoomChooser([]).aliases(tally, "数据库升级") == ("actualizacion",)
    assert RoomChooser(["actualizacion"]).aliases(tally, "数据库升级") == ()  # another room's name: never an alias


def test_an_alias_in_another_language_finds_the_room_in_the_core_and_the_cli(palace_path: Path, settings) -> None:
    with Palace.open(palace_path, settings=settings) as palace:
        palace.file_drawers([DrawerDraft("d1", UPGRADE[0], "wing_zh", "数据库升级", room_aliases=("actualizacion",)),
                             DrawerDraft("d2", UPGRADE_ES[0], "wing_es", "数据库升级", room_aliases=("actualizacion",))])
        assert palace.room_aliases() == {"actualizacion": "数据库升级"}
        assert palace.resolve_room("Actualización") == "数据库升级"
        assert palace.browse(room="actualizacion")[0] == 2
    runner = CliRunner()
    hits = as_json(runner.invoke(main, ["--palace", str(palace_path), "search", "base de datos", "--room",
                                        "actualizacion", "--json"]))
    assert hits and {h["room"] for h in hits} == {"数据库升级"}


def test_a_japanese_chat_is_named_by_its_topic_word_not_an_everyday_one() -> None:
    said = ["サーバーの問題が起きました。問題の原因は証明書の期限切れです。", "証明書の更新を自動化しましょう。問題は再発しません。",
            "証明書の期限を監視するアラートも追加しました。"]
    assert RoomChooser([]).choose(said) == "証明書"  # not 問題 ("problem"), nor a clause


def test_filing_chats_not_in_english_into_an_english_only_palace_says_how_to_move_it(tmp_path: Path, settings) -> None:
    chat = tmp_path / "升级.txt"
    chat.write_text("\n\n".join(f"User: {line}" for line in UPGRADE), encoding="utf-8")
    english = tmp_path / "standup.txt"
    english.write_text("User: We moved the standup to ten and Kai owns the release notes now.", encoding="utf-8")
    with Palace.open(tmp_path / "p", settings=settings) as palace:  # the fake embedder reads no language
        from mempalace.ingest.pipeline import ingest

        said = ingest(palace, chat).notes
        assert any("not in English" in note and "mempalace embedder --to use-m3" in note for note in said), said
        assert not [n for n in ingest(palace, english).notes if "not in English" in n]
    from mempalace.language.languages import embedder_note

    assert embedder_note("use-m3", UPGRADE) is None  # it reads them


MOVE_JA = ["来月引っ越しするので、新しいアパートの賃貸契約を調べています。田中さんに相談しました。",
           "引っ越しの前に電気とガスの手続きが必要です。賃貸契約の更新も確認してください。",
           "田中さんによると、引っ越しの見積もりは三社から取るのが良いそうです。",
           "引っ越し業者は土曜日の朝に来ます。"]


def test_japanese_words_come_from_a_dictionary_so_a_kana_word_names_the_room_and_a_person_never_does() -> None:
    import re

    words = words_in("来月引っ越しするので、田中さんと医療費控除の書類を準備した。", re.compile(r"\w+"))
    assert {"引っ越し", "医療費", "控除", "書類"} <= set(words)  # 引っ越し mixes kanji and kana; 費 joins 医療
    assert not {"田中", "さん", "来月", "準備した"} & set(words)  # a person, a suffix, a time word, a verb form
    assert RoomChooser([]).choose(MOVE_JA, names=["田中"]) == "引っ越し"
    mixed = words_in("deploy待ちが多くて、lock待ちでタイムアウトした。", re.compile(r"\w+"))
    assert "待ち" not in mixed and {"deploy", "lock"} <= set(mixed)  # read as the suffix it is after a Latin word


def test_a_russian_name_is_written_in_the_nominative_up_to_its_head_noun() -> None:
    from mempalace.language.languages import written

    assert written("экзамене") == "экзамен" and written("свадьбу") == "свадьба"
    assert written("новой квартиры") == "новая квартира"  # the adjective tells the noun's case
    assert written("водительских прав") == "водительские права"  # a plural stays plural
    assert written("ремонта ноутбука") == "ремонт ноутбука"  # what follows the head keeps its case
    assert written("протечки") == "протечки"  # it may be nominative already: left as written
    assert written("Марине") == "Марине"  # a person's name is not read as a word to inflect
    exam = ["На экзамене инструктор сказал, что я плохо паркуюсь.", "Перед экзаменом надо потренировать парковку.",
            "Я сдаю экзамен в пятницу, если не сдам экзамен, пересдача через неделю.",
            "Говорят, на экзамене главное не нервничать и смотреть в зеркала."]
    assert RoomChooser([]).choose(exam) == "экзамен"


def test_a_month_or_a_weekday_never_names_a_room_in_any_language() -> None:
    from mempalace.language.languages import is_calendar

    assert all(map(is_calendar, ["juin", "Dienstag", "пятницу", "星期六", "土曜日", "mayo", "Thursdays", "lundis"]))
    assert not any(map(is_calendar, ["voiture", "mar", "anniversaire", "protecting"]))
    party = ["On fête l'anniversaire de Léa le 14 juin, avec un gâteau au chocolat et des ballons.",
             "Pour l'anniversaire en juin, on peut réserver la salle et commander le gâteau.",
             "Les invitations pour l'anniversaire partent début juin, le gâteau est commandé."]
    assert RoomChooser([]).choose(party, names=["Léa"]) == "anniversaire"
    garden = ["Am Dienstag treffen wir uns im Garten.", "Dienstag passt mir gut, ich bringe Salat mit.",
              "Bis Dienstag dann, vergiss die Lampions nicht."]
    dentist = ["La cita es el martes por la tarde.", "El martes no puedo, ¿el miércoles?",
               "Vale, el martes a las cinco en la clínica."]
    assert RoomChooser([]).choose(garden) == RoomChooser([]).choose(dentist) == "general"  # were dienstag, martes
    office = ["Office days are Tuesdays and Thursdays now.", "Thursdays are fine, Tuesdays clash with school runs.",
              "If Tuesdays stay, I'll drive in on Thursdays too."]
    assert RoomChooser([]).choose(office) not in {"thursdays", "tuesdays"}  # was thursdays


def test_a_room_spelled_with_accents_is_found_by_its_plain_name_but_never_filed_into_it(palace_path, settings) -> None:
    with Palace.open(palace_path, settings=settings) as palace:
        palace.add_drawer("Plan del año: ahorrar para la entrada del piso.", "wing_ana", "ano")
        palace.add_drawer("El año pasado cambiamos de banco.", "wing_ana", "año")
        palace.add_drawer("My résumé lists the Lisbon job first.", "wing_ana", "résumé")
        palace.add_drawer("A new resume template with two columns.", "wing_ana", "resume")
        rooms = palace.list_rooms()
        assert {"ano": 1, "año": 1, "resume": 1, "résumé": 1}.items() <= rooms.items()
        assert palace.resolve_room("año") == "año" and palace.resolve_room("actualización") == "actualización"


def test_a_chinese_or_russian_name_is_handed_to_one_room_only() -> None:
    for texts in (["我们的数据库迁移计划需要回滚方案。", "数据库迁移的停机窗口定在周末，数据库迁移要先备份。"],
                  ["Мы готовимся к экзамену по физике.", "На экзамене по физике будут задачи, к экзамену нужно повторить."]):
        chooser = RoomChooser([])
        first, second = chooser.choose(texts), chooser.choose(texts)
        assert first != second and first != "general"  # was the same name twice (one room)
