"""A browser's device in words for the Security page ("Chrome on Mac", "Safari on iPhone"), read from
its User-Agent with ua-parser (the uap-core rules, kept current by that project) once, at sign-in."""

from __future__ import annotations

from ua_parser import parse

_MAX_USER_AGENT = 1024  # longer headers are cut before parsing: the rules match near the start
_PLATFORMS = {"Mac OS X": "Mac", "Chrome OS": "ChromeOS", "Ubuntu": "Linux", "Fedora": "Linux"}
_HANDHELDS = ("iPhone", "iPad", "iPod")


def _browser(family: str | None) -> str:
    if not family or family == "Other":
        return ""
    for noise in ("Headless", " Mobile iOS", " Mobile WebView", " Mobile", "Mobile "):
        family = family.replace(noise, "")
    return family.strip()


def _platform(os_family: str | None, device_family: str | None) -> str:
    if device_family in _HANDHELDS:
        return device_family
    if not os_family or os_family == "Other":
        return ""
    return _PLATFORMS.get(os_family, os_family)


def device_name(user_agent: str) -> str:
    """The browser and platform ("Firefox on Windows", "Safari on iPhone"), one of them, or "" for
    a program whose User-Agent names neither."""
    if not user_agent:
        return ""
    found = parse(user_agent[:_MAX_USER_AGENT])
    browser = _browser(found.user_agent.family if found.user_agent else None)
    platform = _platform(found.os.family if found.os else None, found.device.family if found.device else None)
    if browser and platform:
        return f"{browser} on {platform}"
    return browser or platform
