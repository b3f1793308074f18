"""URLs as FILE arguments and outputs: ``s3://``, ``gs://``, ``http(s)://`` and any
other protocol fsspec knows, through fsspec and the protocol's own package.

This module holds what every remote format shares: recognising a URL, the
filesystem it names (with the caller's storage options), the one-line errors
for a missing package (naming the extra to install), a missing bucket or
object, denied access, a server that does not answer; parsing
``--storage-option KEY=VALUE``; and masking secret option values wherever
options are shown. It imports no format module, so that the formats
(io.remote, io.zarr_input, io.zarr_output) can all use it.

Credentials come from where the filesystem library looks (for S3: the
``AWS_*`` variables, ``~/.aws``; for GCS: the application default
credentials), or from storage options; they are never shown: a report names
the options with their secret values masked (masked), and an error message
has any option value that could be a secret replaced (scrub).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import InputFileError, MeancliError, OutputFileError, UsageError, extra_hint

#: ``scheme://``: RFC 3986's scheme characters, then ``://``.
_URL = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*)://")

#: The extra of pyproject.toml that installs each protocol's package.
PROTOCOL_EXTRA = {
    "s3": "s3",
    "s3a": "s3",
    "gs": "gcs",
    "gcs": "gcs",
    "http": "http",
    "https": "http",
}

#: The package that reads each protocol (what the extra installs).
PROTOCOL_PACKAGE = {
    "s3": "s3fs",
    "s3a": "s3fs",
    "gs": "gcsfs",
    "gcs": "gcsfs",
    "http": "aiohttp",
    "https": "aiohttp",
}

#: Option names whose values are secrets (a key holding one of these words, any case).
SECRET_WORDS = ("secret", "key", "token", "password", "passwd", "credential", "session", "auth", "sas")
MASK = "***"

StorageOptions = Mapping[str, Any]


def url_protocol(arg: str) -> str | None:
    """The protocol of a URL argument (``s3`` for ``s3://bucket/x.npy``), lower-case;
    None for anything else (a path, ``-``). ``file://`` is a URL too (fsspec's local files)."""
    match = _URL.match(arg)
    return match.group(1).lower() if match else None


def is_url(arg: str) -> bool:
    """Whether ``arg`` is a URL (``scheme://...``), which fsspec opens."""
    return url_protocol(arg) is not None


def split_url_member(url: str) -> list[tuple[str, str]]:
    """The ways to read ``url`` as ``LOCATION:MEMBER`` (a zarr store and the path of an
    array in it, an ``.npz`` and a member), the whole URL first: each ``:`` after the
    URL's host (``http://host:8000/a.npz:x`` -> (``http://host:8000/a.npz``, ``x``))."""
    match = _URL.match(url)
    assert match is not None
    start = url.find("/", match.end())
    ways = [(url, "")]
    if start == -1:
        return ways
    at = url.find(":", start)
    while at != -1:
        ways.append((url[:at], url[at + 1 :].strip("/")))
        at = url.find(":", at + 1)
    return ways


def parse_storage_options(values: Iterable[str]) -> dict[str, Any]:
    """``--storage-option KEY=VALUE`` values as a dict: VALUE is parsed as JSON when it
    parses (``anon=true`` -> True, ``config_kwargs={"read_timeout": 5}`` -> a dict), else
    kept as a string (``endpoint_url=http://127.0.0.1:9000``). A later KEY replaces an
    earlier one.

    Raises:
        UsageError: a value without ``=`` or with an empty KEY (the value itself is not
            repeated: it may be a secret).
    """
    options: dict[str, Any] = {}
    for value in values:
        key, eq, text = value.partition("=")
        key = key.strip()
        if not eq or not key:
            shown = key if key and not _is_secret(key) else "KEY"
            raise UsageError(f"--storage-option {shown}: give KEY=VALUE (for example anon=true)")
        try:
            options[key] = json.loads(text)
        except ValueError:
            options[key] = text
    return options


def _is_secret(name: str) -> bool:
    lowered = name.lower()
    return any(word in lowered for word in SECRET_WORDS)


def masked(options: StorageOptions | None) -> dict[str, Any]:
    """``options`` as a report shows them: the value of every key naming a secret
    (SECRET_WORDS: ``secret``, ``key``, ``token``, ``password``, ...) replaced by
    ``***``, in nested dicts too (``client_kwargs``)."""
    shown: dict[str, Any] = {}
    for name, value in (options or {}).items():
        if _is_secret(str(name)):
            shown[name] = MASK
        elif isinstance(value, Mapping):
            shown[name] = masked(value)
        else:
            shown[name] = value
    return shown


def _secret_values(options: StorageOptions | None) -> list[str]:
    found: list[str] = []
    for name, value in (options or {}).items():
        if isinstance(value, Mapping):
            found += _secret_values(value)
        elif _is_secret(str(name)) and value not in (None, "", True, False):
            found.append(str(value))
    return found


def scrub(text: str, options: StorageOptions | None) -> str:
    """``text`` with every secret option value in it replaced by ``***``."""
    for secret in sorted(_secret_values(options), key=len, reverse=True):
        text = text.replace(secret, MASK)
    return text


def _fsspec_options(protocol: str, options: StorageOptions | None) -> dict[str, Any]:
    """The options handed to the filesystem: for http(s), ``timeout=SECONDS`` (a number,
    as a command line gives it) becomes aiohttp's ``client_kwargs={"timeout":
    ClientTimeout(total=SECONDS)}``, which JSON cannot spell."""
    given = dict(options or {})
    if protocol in ("http", "https") and isinstance(given.get("timeout"), (int, float)):
        import aiohttp

        client = dict(given.get("client_kwargs") or {})
        client["timeout"] = aiohttp.ClientTimeout(total=float(given.pop("timeout")))
        given["client_kwargs"] = client
    return given


def filesystem(url: str, options: StorageOptions | None, *, output: bool = False) -> tuple[Any, str]:
    """The fsspec filesystem that ``url`` names, with ``options``, and the path in it.

    Raises:
        InputFileError (OutputFileError when ``output``): fsspec or the protocol's package
            is not installed (naming the extra that installs it), an unknown protocol, or
            options the filesystem refuses.
    """
    error = OutputFileError if output else InputFileError
    protocol = url_protocol(url) or "file"
    extra = PROTOCOL_EXTRA.get(protocol)
    try:
        import fsspec
    except ImportError:
        raise error(f"{url}: URLs are read through fsspec; {extra_hint(extra or 's3')}") from None
    try:
        fs, path = fsspec.core.url_to_fs(url, **_fsspec_options(protocol, options))
        return fs, str(path)
    except ImportError as exc:
        if extra is not None:
            package = PROTOCOL_PACKAGE[protocol]
            raise error(
                f"{url}: {protocol}:// URLs are read through {package}, which is not installed; "
                f"{extra_hint(extra)}"
            ) from None
        raise error(
            f"{url}: {protocol}:// needs a package not installed: {scrub(str(exc), options)}"
        ) from None
    except ValueError as exc:
        if "not known" in str(exc).lower() or "protocol" in str(exc).lower():
            raise error(f"{url}: unknown URL protocol {protocol}://") from None
        raise error(f"{url}: {scrub(_one_line(exc), options)}") from None
    except TypeError as exc:  # an option the filesystem does not take
        raise error(
            f"{url}: a storage option {protocol}:// does not take: {scrub(_one_line(exc), options)}"
        ) from None


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _kind(exc: BaseException) -> str:
    """What went wrong, in a few words, from the exceptions fsspec's filesystems raise."""
    names = {t.__name__ for t in type(exc).__mro__}
    if isinstance(exc, FileNotFoundError):
        return "not found"
    if isinstance(exc, PermissionError):
        return "access denied"
    if isinstance(exc, TimeoutError) or any("Timeout" in n for n in names):
        return "the server did not answer in time"
    if any("Connect" in n or "Connection" in n for n in names):
        return "cannot connect"
    return ""


def remote_error(
    where: str, exc: BaseException, options: StorageOptions | None, *, output: bool = False
) -> MeancliError:
    """The one-line error for a failed remote read (or write, with ``output``):
    ``WHERE: not found (...)``, ``WHERE: access denied``, ``WHERE: the server did not
    answer in time``, ``WHERE: cannot connect (...)``; secret option values scrubbed."""
    if isinstance(exc, MeancliError):
        return exc
    kind = _kind(exc)
    detail = scrub(_one_line(exc), options)
    if kind == "not found" and detail.rstrip("/") in (where, where.split("://", 1)[-1]):
        detail = ""  # FileNotFoundError(path): the path again says nothing
    text = f"{kind} ({detail})" if kind and detail and detail.lower() != kind else kind or detail
    if isinstance(exc, TypeError) and options:  # http(s): aiohttp meets an option only as it asks
        text = f"a --storage-option the filesystem refuses: {detail}"
    if output:
        return OutputFileError(f"cannot write {where}: {text}")
    return InputFileError(f"{where}: {text}")
