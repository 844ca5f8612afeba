"""Settings shared by every environment; all environment input is read here, once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from overlap_site.settings.env import (
    env_bool,
    env_float,
    env_int,
    env_list,
    env_str,
    parse_database_url,
    parse_redis_url,
)

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = Path(env_str("OVERLAP_VAR_DIR") or BASE_DIR / "var")

SECRET_KEY = env_str("DJANGO_SECRET_KEY") or "insecure-dev-key-change-me-in-production-0123456789"
DEBUG = env_bool("DJANGO_DEBUG", False)
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "proximity",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "overlap_site.urls"
WSGI_APPLICATION = "overlap_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "overlap_site" / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# Storage: SQLite in the project is the embedded default; DATABASE_URL switches to PostgreSQL.
DATABASE_URL = env_str("DATABASE_URL")
DATABASES = {
    "default": parse_database_url(DATABASE_URL, base_dir=BASE_DIR)
    if DATABASE_URL
    else {"ENGINE": "django.db.backends.sqlite3", "NAME": str(BASE_DIR / "db.sqlite3")}
}
DATABASES["default"]["CONN_MAX_AGE"] = env_int("OVERLAP_DB_CONN_MAX_AGE", 60, minimum=0)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # Several writers (web + in-process tasks) share one file: wait instead of failing.
    DATABASES["default"]["OPTIONS"] = {"timeout": 20, "transaction_mode": "IMMEDIATE"}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "frontend_assets"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

LOGIN_URL = "/admin/login/"
LOGIN_REDIRECT_URL = "/"

# Request bodies are bounded before parsing (agents report working sets, not repositories).
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("OVERLAP_MAX_BODY_BYTES", 1_048_576, minimum=1024)

# Queue: REDIS_URL set means Redis. Else OVERLAP_QUEUE_DIR set means kombu's filesystem transport
# in that folder: no server to install, what `manage.py up` runs a worker with an embedded beat
# on. Neither means Celery runs tasks in-process (eager), and nothing periodic runs at all.
REDIS_URL = parse_redis_url(url) if (url := env_str("REDIS_URL")) else None
OVERLAP_QUEUE_DIR = None if REDIS_URL else env_str("OVERLAP_QUEUE_DIR")
# "localhost" in the URL: kombu warns "No hostname was supplied" for a bare transport URL.
CELERY_BROKER_URL = REDIS_URL or (
    "filesystem://localhost/" if OVERLAP_QUEUE_DIR else "memory://localhost/"
)
CELERY_TASK_ALWAYS_EAGER = REDIS_URL is None and OVERLAP_QUEUE_DIR is None
# Whether a beat can run at all: `repositories add --watch` and doctor refuse a watch nobody runs.
OVERLAP_PERIODIC_WORK = not CELERY_TASK_ALWAYS_EAGER
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_IGNORE_RESULT = True  # results live in our own tables, never a result backend
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_TIMEOUT = 3  # a down broker must not hang a web request
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.5}
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, Any] = {
    # Redeliver a task whose worker died after this many seconds without an ack.
    "visibility_timeout": env_int("OVERLAP_VISIBILITY_TIMEOUT", 300, minimum=10),
}
CELERY_TASK_SOFT_TIME_LIMIT = env_int("OVERLAP_TASK_SOFT_TIME_LIMIT", 120, minimum=1)
CELERY_TASK_TIME_LIMIT = env_int("OVERLAP_TASK_TIME_LIMIT", 180, minimum=1)

# Shared cache (import-parse results keyed by blob hash): Redis when configured, else in-process.
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": "radar",
    }
    if REDIS_URL
    else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "radar"}
}

# Product tunables.
OVERLAP_DEFAULT_PROFILE = env_str("OVERLAP_DEFAULT_PROFILE", "radar-v1-symbols")
OVERLAP_SCAN_DEBOUNCE_SECONDS = env_float("OVERLAP_SCAN_DEBOUNCE_SECONDS", 0.3, minimum=0.0)
# The time bucket in a scan's input hash: what changes with time alone is re-scored this often.
OVERLAP_SCAN_RESCORE_SECONDS = env_int("OVERLAP_SCAN_RESCORE_SECONDS", 300, minimum=10)
OVERLAP_SCAN_MAX_ATTEMPTS = env_int("OVERLAP_SCAN_MAX_ATTEMPTS", 3, minimum=1)
OVERLAP_SCAN_RETRY_BACKOFF_SECONDS = env_int("OVERLAP_SCAN_RETRY_BACKOFF_SECONDS", 30, minimum=1)
OVERLAP_COVERAGE_STALE_SECONDS = env_int("OVERLAP_COVERAGE_STALE_SECONDS", 120, minimum=1)
OVERLAP_TRIGGER_COOLDOWN_SECONDS = env_int("OVERLAP_TRIGGER_COOLDOWN_SECONDS", 300, minimum=0)
OVERLAP_WORKING_SET_TTL_SECONDS = env_int("OVERLAP_WORKING_SET_TTL_SECONDS", 3600, minimum=60)
# How far ahead of the server's clock a time an agent sends may lie (startedAt, touchedAt).
OVERLAP_CLOCK_SKEW_SECONDS = env_int("OVERLAP_CLOCK_SKEW_SECONDS", 300, minimum=0)
# How long an agent's acknowledgement of another (after a pre-edit denial) allows its edits.
OVERLAP_EDIT_ACK_TTL_SECONDS = env_int("OVERLAP_EDIT_ACK_TTL_SECONDS", 14400, minimum=60)
OVERLAP_WATCH_INTERVAL_SECONDS = env_int("OVERLAP_WATCH_INTERVAL_SECONDS", 30, minimum=1)
OVERLAP_EMBEDDING_MODEL_DIR = env_str("OVERLAP_EMBEDDING_MODEL_DIR")
# /api/health and /health/ share one run of the checks (worker ping, git) for this long.
OVERLAP_HEALTH_CACHE_SECONDS = env_int("OVERLAP_HEALTH_CACHE_SECONDS", 15, minimum=0)
OVERLAP_NLI_MODEL_DIR = env_str("OVERLAP_NLI_MODEL_DIR")
# Speculative merge checks (opt-in per repository, queue ``merge_checks``): new checks per
# repository per planning round, one check's time limits, each git child's resource limits.
OVERLAP_MERGE_CHECK_MAX_PER_REPO = env_int("OVERLAP_MERGE_CHECK_MAX_PER_REPO", 8, minimum=0)
OVERLAP_MERGE_CHECK_SOFT_TIME_LIMIT = env_int("OVERLAP_MERGE_CHECK_SOFT_TIME_LIMIT", 300, minimum=1)
OVERLAP_MERGE_CHECK_TIME_LIMIT = env_int("OVERLAP_MERGE_CHECK_TIME_LIMIT", 330, minimum=1)
OVERLAP_MERGE_CHECK_MEMORY_MB = env_int("OVERLAP_MERGE_CHECK_MEMORY_MB", 2048, minimum=64)
OVERLAP_MERGE_CHECK_CPU_SECONDS = env_int("OVERLAP_MERGE_CHECK_CPU_SECONDS", 60, minimum=1)
OVERLAP_MERGE_CHECK_PROCESSES = env_int("OVERLAP_MERGE_CHECK_PROCESSES", 256, minimum=8)
OVERLAP_MERGE_CHECK_MAX_PROBLEMS = env_int("OVERLAP_MERGE_CHECK_MAX_PROBLEMS", 20, minimum=1)
# Test runs of repositories with merge_check_tests on, each in a sandbox (proximity/sources/
# sandbox.py): a configured interpreter (pytest and the repository's test requirements
# installed; unset: the worktree's own .venv/venv, else the plain system python3 with pytest
# only), who runs them when the worker is root, one run's wall clock and CPU, and how many test
# files at most (those nearest both sides' changes are kept).
OVERLAP_MERGE_CHECK_TEST_PYTHON = env_str("OVERLAP_MERGE_CHECK_TEST_PYTHON")
OVERLAP_MERGE_CHECK_PLAIN_PYTHON = env_str("OVERLAP_MERGE_CHECK_PLAIN_PYTHON")
OVERLAP_SANDBOX_USER = env_str("OVERLAP_SANDBOX_USER", "nobody")
OVERLAP_MERGE_CHECK_TEST_TIMEOUT = env_int("OVERLAP_MERGE_CHECK_TEST_TIMEOUT", 60, minimum=1)
OVERLAP_MERGE_CHECK_TEST_CPU_SECONDS = env_int(
    "OVERLAP_MERGE_CHECK_TEST_CPU_SECONDS", 120, minimum=1
)
OVERLAP_MERGE_CHECK_TEST_MAX_FILES = env_int("OVERLAP_MERGE_CHECK_TEST_MAX_FILES", 20, minimum=1)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("OVERLAP_LOG_LEVEL", "INFO")},
}


def _env_rate(name: str, default: str) -> str:
    import re

    from overlap_site.settings.env import EnvironmentConfigError

    value = env_str(name, default) or default
    if not re.fullmatch(r"[1-9][0-9]*/(s|sec|m|min|h|hour|d|day)", value):
        raise EnvironmentConfigError(name, f"expected <count>/<s|min|hour|day>, got {value!r}")
    return value


def _env_budget(name: str, default: int) -> dict[str, Any]:
    """``"3"`` or ``"3,payments=5,security=10"``: a default and per-scope overrides (>= 0)."""
    from overlap_site.settings.env import EnvironmentConfigError

    raw = env_str(name) or str(default)
    head, *rest = [part.strip() for part in raw.split(",")]
    scopes: dict[str, int] = {}
    try:
        value = int(head)
        for part in rest:
            scope, _, n = part.partition("=")
            scopes[scope.strip()] = int(n)
    except ValueError:
        raise EnvironmentConfigError(name, f"expected <n>[,<scope>=<n>...], got {raw!r}") from None
    if value < 0 or any(n < 0 for n in scopes.values()) or "" in scopes:
        raise EnvironmentConfigError(name, f"budgets must be >= 0 with named scopes, got {raw!r}")
    return {"default": value, "scopes": scopes}


# Review cards per new task version (the rest of its candidates are held back, still stored):
# a default and per-scope overrides, "3,payments=5". Locally selected, not validated.
OVERLAP_REVIEW_BUDGET = _env_budget("OVERLAP_REVIEW_BUDGET", 4)


# Rate limits ("<count>/<s|min|hour|day>"): reports per token, failed token checks per address.
OVERLAP_REPORT_RATE = _env_rate("OVERLAP_REPORT_RATE", "120/min")
OVERLAP_AUTH_FAILURE_RATE = _env_rate("OVERLAP_AUTH_FAILURE_RATE", "30/min")
# Proxies in front of the web server whose X-Forwarded-For entries are trusted when rate
# limits key on the client's address (ninja reads NINJA_NUM_PROXIES). 0: the address is
# REMOTE_ADDR, and a client cannot pick its own by sending the header.
NINJA_NUM_PROXIES = env_int("OVERLAP_TRUSTED_PROXIES", 0, minimum=0)

# Retention (days; 0 keeps forever). Advisories and adjudications are never pruned.
OVERLAP_RETAIN_SNAPSHOT_DAYS = env_int("OVERLAP_RETAIN_SNAPSHOT_DAYS", 14, minimum=0)
OVERLAP_RETAIN_SCAN_DAYS = env_int("OVERLAP_RETAIN_SCAN_DAYS", 14, minimum=0)
OVERLAP_RETAIN_MESSAGE_DAYS = env_int("OVERLAP_RETAIN_MESSAGE_DAYS", 30, minimum=0)
OVERLAP_PRUNE_BATCH_SIZE = env_int("OVERLAP_PRUNE_BATCH_SIZE", 500, minimum=1)

# How often each worker looks for tasks a dead worker left unacknowledged (once older than the
# visibility timeout they are redelivered). kombu's default works out at 100 s.
CELERY_BROKER_TRANSPORT_OPTIONS["unacked_restore_interval"] = env_int(
    "OVERLAP_UNACKED_RESTORE_SECONDS", 10, minimum=1
)
CELERY_BROKER_TRANSPORT_OPTIONS["unacked_restore_throttle"] = 1
if OVERLAP_QUEUE_DIR:
    # One folder of messages for producers and consumers alike; broadcasts (worker pings) in
    # "control". celery_app creates them.
    CELERY_BROKER_TRANSPORT_OPTIONS.update(
        data_folder_in=str(Path(OVERLAP_QUEUE_DIR) / "messages"),
        data_folder_out=str(Path(OVERLAP_QUEUE_DIR) / "messages"),
        control_folder=str(Path(OVERLAP_QUEUE_DIR) / "control"),
    )
