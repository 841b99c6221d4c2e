"""The browser table: ``rummy500 serve`` plays and shows games in a web page.

``moves`` steps one game and keeps the table of a hand that just ended,
``views`` turns a game into the JSON one viewer may see, ``tables`` holds the
games and replays the server keeps (bounded, idle ones expire), ``saving``
writes records atomically, and ``server`` is the HTTP front: routes, limits
and refusals. The page itself is plain HTML, CSS and JavaScript in ``static/``.
"""
