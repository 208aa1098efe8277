"""Reading and writing goose-tui's files safely. Whether a path may be written, how it is
written and what a failure says are decided here only: ``check_output_target`` (the CLI's
-o options, the app's saves, the compacted session after Goose's own rules), atomic writes
that never replace an input, a special file or a symbolic link, and ``write_error``. Every
text written loses the API keys the process knows (``redact.remove_known_keys``)."""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import BinaryIO

from goose_tui.redact import KEY_REMOVED, remove_known_keys

# Told how many keys a write removed from its text (only called when there were some).
OnKeysRemoved = Callable[[Path, int], None]

# SQLite keeps a database's live state in these companions; writing over one corrupts it.
SQLITE_COMPANIONS = ("-wal", "-shm", "-journal")


class NotRegularFile(OSError):
    """An input that is a device, FIFO, socket or folder: reading it could never end (or
    block forever), so it is refused at once. The message names the path and its kind."""


def open_regular(path: Path) -> BinaryIO:
    """``path`` opened read-only, binary, when it is a regular file (a symbolic link to one
    is fine); raises ``NotRegularFile`` at once otherwise (a FIFO is opened without
    blocking, so refusing it does not wait for a writer), ``OSError`` when it cannot be
    opened."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(f"{path}: is {_kind(mode)}, not a regular file")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


class TooLarge(OSError):
    """A file of goose-tui's own that is larger than any it writes: not read at all."""


def read_regular(path: Path, limit: int | None = None) -> bytes:
    """The bytes of ``path`` through ``open_regular`` (a FIFO, device or folder is refused
    at once); ``TooLarge`` when ``limit`` is given and the file holds more bytes."""
    with open_regular(path) as handle:
        data = handle.read() if limit is None else handle.read(limit + 1)
    if limit is not None and len(data) > limit:
        raise TooLarge(f"{path}: larger than {limit:,} bytes, not read")
    return data


class OverwriteRefused(Exception):
    """The target cannot be written: it is an input, a special file, or its folder is not
    there or not writable. The message is one line naming the path."""


def same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and a.samefile(b))
    except (OSError, RuntimeError):
        return False


def _with_companions(inputs: Iterable[Path | None]) -> list[Path]:
    paths: list[Path] = []
    for source in inputs:
        if source is None:
            continue
        source = Path(source).expanduser()
        paths.append(source)
        paths.extend(Path(f"{source}{suffix}") for suffix in SQLITE_COMPANIONS)
    return paths


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def write_destination(target: Path) -> Path:
    """Where writing ``target`` really lands: a symbolic link's final target (the link
    itself stays a link), else ``target``."""
    target = Path(target).expanduser()
    return target.resolve() if target.is_symlink() else target


def nearest_existing(folder: Path, *, folders_only: bool = False) -> Path:
    """``folder`` or its nearest ancestor that exists (the root at the latest). A writer
    stops at whatever is there, so it can say that a file is in the way of the folders it
    would make; a watcher (``folders_only``) passes over a file, since only a folder can
    be watched for the one it holds to appear."""
    while folder != folder.parent and not (folder.is_dir() if folders_only else folder.exists()):
        folder = folder.parent
    return folder


def check_output_target(
    target: Path,
    inputs: Iterable[Path | None] = (),
    *,
    replace: bool = True,
    make_folders: bool = False,
) -> str | None:
    """Why ``target`` must not be written, in one line naming it, or None when it may be.

    Refused: any of ``inputs`` (and a SQLite input's -wal/-shm/-journal files), whether
    named directly, through a symbolic link or a hard link; anything that exists and is not
    a regular file (folder, device, FIFO, socket); an existing file that is read-only (an
    atomic rename would replace it all the same), or any existing file unless ``replace``
    (the CLI's --overwrite; the app asks first); a folder that cannot be written, or that
    does not exist unless ``make_folders`` (then the nearest folder that exists must be
    writable). A symbolic link to a regular file is accepted: the file it points to is
    written and the link is kept."""
    target = Path(target).expanduser()
    for source in _with_companions(inputs):
        if same_file(target, source):
            return f"{target}: refusing to write over an input file ({source})"
    try:
        link = target.is_symlink()
    except OSError as exc:  # a name too long, a folder in the path that is a file
        return f"{target}: cannot be written: {exc.strerror or exc}"
    try:
        destination = target.resolve() if link else target
    except (OSError, RuntimeError) as exc:
        return f"{target}: cannot follow the symbolic link: {exc}"
    try:
        info = destination.stat()
    except (FileNotFoundError, NotADirectoryError):  # the folders are checked below
        info = None
    except OSError as exc:
        return f"{target}: cannot check the file: {exc.strerror or exc}"
    if info is not None and not stat.S_ISREG(info.st_mode):
        return f"{target}: is {_kind(info.st_mode)}, refusing to write there (not a regular file)"
    if info is not None and not os.access(destination, os.W_OK):
        return f"{target}: is read-only, refusing to replace it"
    if info is not None and not replace:
        return f"{target}: already exists (pass --overwrite to replace it)"
    folder = destination.parent
    if make_folders:
        folder = nearest_existing(folder)
        if not folder.is_dir():
            return f"{target}: {folder} is not a folder"
    elif not folder.is_dir():
        return f"{target}: the folder {folder} does not exist"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"{target}: the folder {folder} is not writable"
    return None


def check_writable(
    target: Path,
    inputs: Iterable[Path | None] = (),
    *,
    replace: bool = True,
    make_folders: bool = False,
) -> Path:
    """``check_output_target`` as an exception (``OverwriteRefused``); returns ``target``
    with ``~`` expanded."""
    problem = check_output_target(target, inputs, replace=replace, make_folders=make_folders)
    if problem is not None:
        raise OverwriteRefused(problem)
    return Path(target).expanduser()


def write_checked(
    target: Path,
    text: str,
    inputs: Iterable[Path | None] = (),
    *,
    replace: bool = True,
    make_folders: bool = False,
    on_keys_removed: OnKeysRemoved | None = None,
) -> Path:
    """``check_writable``, then ``atomic_write_text``: a file that appeared since an earlier
    check is left as it is unless ``replace``."""
    target = check_writable(target, inputs, replace=replace, make_folders=make_folders)
    atomic_write_text(target, text, replace=replace, on_keys_removed=on_keys_removed)
    return target


def _temp_beside(target: Path) -> tuple[int, Path]:
    # Created with 0o666 so the kernel applies the user's umask (mkstemp would give 0600).
    # The name stays short so a long target name still leaves room for it.
    while True:
        tmp = target.with_name(f".goose-tui-{secrets.token_hex(6)}.tmp")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), tmp
        except FileExistsError:
            continue


def atomic_write_bytes(target: Path, data: bytes, *, replace: bool = True) -> None:
    """Write to a temporary file beside ``target``, fsync, then rename over it, so a reader
    sees the old file or the new one, never half of one. A new file gets the umask's mode,
    a replaced file keeps its mode, and a symbolic link is written through, not replaced.

    ``replace`` False: a file that is there at the last step (one that appeared since the
    caller checked, while a model ran) is left as it is: ``FileExistsError``."""
    target = write_destination(Path(target))
    try:
        existing = target.stat()
    except FileNotFoundError:
        existing = None
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        raise OSError(errno.EINVAL, f"is {_kind(existing.st_mode)}", str(target))
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd, tmp = _temp_beside(target)
    except OSError as exc:  # it names the temporary file, which the user never asked for
        reason = f"{exc.strerror or exc} (no file can be created in {target.parent})"
        raise OSError(exc.errno, reason, str(target)) from exc
    try:
        with os.fdopen(fd, "wb") as fh:
            if existing is not None:
                os.fchmod(fh.fileno(), stat.S_IMODE(existing.st_mode))
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if replace:
            os.replace(tmp, target)
        else:
            _rename_new(tmp, target)
    except BaseException as exc:
        tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError) and exc.filename in (str(tmp), None):  # a failed rename
            raise OSError(exc.errno, exc.strerror or str(exc), str(target)) from exc
        raise


def write_error(target: Path, exc: Exception) -> str:
    """Why writing ``target`` failed, in one line naming it: "PATH: cannot write: REASON",
    without Python's "[Errno N]" (the app's saves and the CLI's -o, --save-session and batch
    -o say it alike)."""
    reason = exc.strerror if isinstance(exc, OSError) else None
    return f"{target}: cannot write: {reason or exc}"


def _rename_new(tmp: Path, target: Path) -> None:
    """Rename ``tmp`` to ``target`` only if no ``target`` is there, in one step: a hard link
    fails on an existing name (the kernel checks it), then the temporary name goes. Where
    hard links are not supported, the check and the rename are two steps."""
    try:
        os.link(tmp, target)
    except FileExistsError:
        raise FileExistsError(errno.EEXIST, "already exists", str(target)) from None
    except OSError:  # no hard links on this file system
        if os.path.lexists(target):
            raise FileExistsError(errno.EEXIST, "already exists", str(target)) from None
        os.replace(tmp, target)
        return
    tmp.unlink()


def atomic_write_text(
    target: Path, text: str, *, replace: bool = True, on_keys_removed: OnKeysRemoved | None = None
) -> int:
    """``text`` written atomically, without the API keys the process knows (each replaced by
    ``KEY_REMOVED``); returns how many were removed, and tells ``on_keys_removed`` if any."""
    text, removed = remove_known_keys(text)
    # A lone surrogate (from a session's JSON) cannot be UTF-8: it is written as ``\ud800``.
    atomic_write_bytes(target, text.encode("utf-8", "backslashreplace"), replace=replace)
    if removed and on_keys_removed is not None:
        on_keys_removed(Path(target), removed)
    return removed


def keys_removed_note(target: Path, count: int) -> str:
    """What a write that removed ``count`` API keys says about it, naming the file."""
    what = "an API key" if count == 1 else f"{count} API keys"
    return (
        f"{target}: {what} this process uses came back in the text and "
        f"{'was' if count == 1 else 'were'} left out of the file (written as {KEY_REMOVED})"
    )
