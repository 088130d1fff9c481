"""Settings, all from environment variables with embedded defaults (README lists each one)."""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import json
import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

from project.csp import url_origin
from project.env import env_bool, env_int, env_list, load_or_create_dev_secrets

BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = Path(os.environ.get("DATA_DIR", BASE_DIR / "var")).resolve()

SERVICE_ENVIRONMENT = os.environ.get("SERVICE_ENVIRONMENT", "sandbox")
if SERVICE_ENVIRONMENT not in ("sandbox", "production"):
    raise ImproperlyConfigured("SERVICE_ENVIRONMENT must be 'sandbox' or 'production'")
PRODUCTION = SERVICE_ENVIRONMENT == "production"
SANDBOX = not PRODUCTION

API_VERSION = "2025-10-13"
API_PREFIX = f"api/{API_VERSION}/"


def _secret(name: str) -> str:
    value = os.environ.get(name)
    if value:
        return value
    if PRODUCTION:
        raise ImproperlyConfigured(f"{name} must be set in production mode")
    return load_or_create_dev_secrets(DATA_DIR)[name]


SECRET_KEY = _secret("SECRET_KEY")
# Key for secrets at rest (payments.secret_box): 32 bytes, urlsafe base64.
SERVICE_SECRETS_KEY = _secret("SERVICE_SECRETS_KEY")

DEBUG = env_bool("DEBUG", default=False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "axes",
    "health_check",
    "project.apps.ProjectConfig",
    "payments",
    "wallets",
    "project.dev_oidc",
    "wallets.portal",
]
if env_bool("BENCH_ENDPOINTS", default=False):
    INSTALLED_APPS.append("project.bench")

MIDDLEWARE = [
    "log_request_id.middleware.RequestIDMiddleware",  # the request id of every log line (README "Logs")
    "project.metrics.RequestMetricsMiddleware",
    "payments.api.authentication.platform_clock_middleware",  # a request runs on its platform's clock
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "project.static_files.WhiteNoiseMiddleware",  # whitenoise, its static-file index built once per process
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "axes.middleware.AxesMiddleware",  # answers a locked-out admin sign-in with the lock-out page
]

# Admin sign-in lock-out (django-axes; project/admin_login.py, README "Admin sign-in lock-out").
AUTHENTICATION_BACKENDS = [
    "project.admin_login.AdminLoginLockout",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_FAILURE_LIMIT = env_int("ADMIN_LOGIN_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = dt.timedelta(seconds=env_int("ADMIN_LOGIN_LOCK_SECONDS", default=900))
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False  # the lock ends when the page says it does
AXES_RESET_ON_SUCCESS = True
AXES_CLIENT_IP_CALLABLE = "project.admin_login.client_address"
AXES_LOCKOUT_TEMPLATE = "admin/lockout.html"

ROOT_URLCONF = "project.urls"
WSGI_APPLICATION = "project.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "project.context_processors.site",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", f"sqlite:///{DATA_DIR / 'db.sqlite3'}"),
        # A new PostgreSQL connection per request costs about ten times the throughput.
        conn_max_age=env_int("CONN_MAX_AGE", default=600),
        conn_health_checks=True,
    )
}
# Behind PgBouncer in transaction mode (README "Running in production") a connection's next
# transaction may run on another server connection: nothing may outlive a transaction there.
DATABASE_TRANSACTION_POOLING = env_bool("DATABASE_TRANSACTION_POOLING", default=False)
# The stamp check remembers active sessions in process and PostgreSQL tells every process when one
# changes (LISTEN, wallets/session_cache.py). A transaction pooler does not pass LISTEN on: behind
# one, DATABASE_LISTEN_URL names a direct connection for the listener, or the cache stays off.
WALLET_SESSION_CACHE = env_bool("WALLET_SESSION_CACHE", default=True)
DATABASE_LISTEN_URL = os.environ.get("DATABASE_LISTEN_URL", "")
if DATABASES["default"]["ENGINE"].endswith("postgresql"):
    # Parameters bound by the server, so psycopg prepares a statement once it has run a few times on
    # a connection: PostgreSQL then skips parsing and planning it again. Half the database's CPU on
    # the money paths, whose locking reads join five tables. Behind a transaction pooler a named
    # prepared statement lives on one server connection, so psycopg sends each statement unnamed
    # (still bound by the server), and Django's server-side cursors (WITH HOLD) are off.
    DATABASES["default"]["OPTIONS"] = {
        "server_side_binding": True,
        "prepare_threshold": None if DATABASE_TRANSACTION_POOLING else 5,
    }
    DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = DATABASE_TRANSACTION_POOLING
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # The web server's threads and the Celery worker write at once. WAL lets reads go on beside the one
    # writer; `timeout` makes a writer wait for the lock instead of failing; IMMEDIATE takes the write
    # lock when a transaction begins, because a transaction that has read and then wants to write
    # cannot wait for it (SQLite answers "database is locked" at once rather than deadlock). Row locks
    # (select_for_update) are no-ops here: a write transaction holds the whole database instead.
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL",
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = DATA_DIR / "staticfiles"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise serves from finders; it only needs the directory
# Uploaded documents go through Django's storage API (payments/documents.py). Every web node and
# worker must see the same files: FILE_STORAGE=filesystem keeps them under MEDIA_ROOT (a path all
# nodes mount), FILE_STORAGE=s3 in an S3-compatible bucket (django-storages; credentials from the
# usual AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY variables or the host's role).
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", DATA_DIR / "media"))
FILE_STORAGE = os.environ.get("FILE_STORAGE", "filesystem")
if FILE_STORAGE == "filesystem":
    _default_storage: dict = {"BACKEND": "django.core.files.storage.FileSystemStorage"}
elif FILE_STORAGE == "s3":
    if not os.environ.get("S3_BUCKET"):
        raise ImproperlyConfigured("FILE_STORAGE=s3 needs S3_BUCKET")
    _default_storage = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": os.environ["S3_BUCKET"],
            "endpoint_url": os.environ.get("S3_ENDPOINT_URL") or None,
            "region_name": os.environ.get("S3_REGION") or None,
            "location": os.environ.get("S3_PREFIX", ""),
            "default_acl": "private",
            "file_overwrite": False,  # a second upload of a name gets its own name, as on a disk
            "querystring_auth": True,
        },
    }
else:
    raise ImproperlyConfigured("FILE_STORAGE must be 'filesystem' or 's3'")
STORAGES = {
    "default": _default_storage,
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# The cache (exchange rates, OIDC signing keys) must be one for all nodes: Redis at CACHE_URL
# (default in production: the broker's Redis). Without Redis it is each process's own memory, which
# only one node may use; a system check refuses that in production (project/checks.py).
CACHE_URL = os.environ.get("CACHE_URL", "")
if (
    not CACHE_URL
    and PRODUCTION
    and os.environ.get("CELERY_BROKER_URL", "").startswith(("redis://", "rediss://"))
):
    CACHE_URL = os.environ["CELERY_BROKER_URL"]
if CACHE_URL:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": CACHE_URL}}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG

SESSION_ENGINE = "wallets.portal.session_store"  # Django's database sessions (any node reads them)
SESSION_COOKIE_SECURE = PRODUCTION
CSRF_COOKIE_SECURE = PRODUCTION
SESSION_COOKIE_HTTPONLY = True
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
if PRODUCTION:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", default=0)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["payments.api.authentication.ApiTokenAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["payments.api.authentication.HasTokenPermission"],
    "DEFAULT_RENDERER_CLASSES": ["payments.api.renderers.JsonRenderer"],
    "DEFAULT_PARSER_CLASSES": ["payments.api.parsers.JsonObjectParser"],
    "EXCEPTION_HANDLER": "payments.api.errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "UNAUTHENTICATED_USER": None,
    "DEFAULT_VERSIONING_CLASS": None,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Payments Service API",
    "DESCRIPTION": (
        "Quotes, payments, customers and embedded-wallet authentication. "
        "Authenticate with HTTP Basic: the API token's clientId as user name and its secret as password."
    ),
    "VERSION": API_VERSION,
    "OAS_VERSION": "3.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": f"/{API_PREFIX}",
    "SCHEMA_PATH_PREFIX_TRIM": True,
    "SERVERS": [{"url": f"/{API_PREFIX.rstrip('/')}"}],
    "SERVE_AUTHENTICATION": [],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "COMPONENT_SPLIT_PATCH": False,
    # One name per choice set where fields of different names share one, or fields of one name hold
    # different sets (drf-spectacular would otherwise make up names such as TypeE63Enum and warn).
    "ENUM_NAME_OVERRIDES": {
        "AuthMethodTypeEnum": "wallets.models.CredentialType",
        "EmailOtpTypeEnum": ["EMAIL_OTP"],
        "SmsOtpTypeEnum": ["SMS_OTP"],
        "OauthTypeEnum": ["OAUTH"],
        "PasskeyTypeEnum": ["PASSKEY"],
        "ScaFactorTypeEnum": ["TOTP", "PASSKEY"],
        "TotpTypeEnum": ["TOTP"],
        "SecurityEventTypeEnum": "payments.sca.profile.SECURITY_EVENTS",
        "TwoFactorResetStatusEnum": "payments.models.ScaFactorResetStatus",
        "EnrollmentStatusEnum": ["PENDING", "COMPLETED"],
        "ScaFactorEnum": "payments.wire.sca.FACTORS",
        "IndividualCustomerTypeEnum": ["INDIVIDUAL"],
        "BusinessCustomerTypeEnum": ["BUSINESS"],
        "CustomerStatusEnum": "payments.models.Customer.Status",
        "TransactionPendingReason": "payments.wire.transactions.PENDING_REASONS",
        "CustomerInfoFieldName": "payments.counterparty.FIELD_NAMES",
        "DocumentTypeEnum": "payments.models.Document.Type",
        "IndividualSourceOfFundsCategoryEnum": "payments.wire.customers.INDIVIDUAL_SOURCE_OF_FUNDS",
        "BusinessSourceOfFundsCategoryEnum": "payments.wire.customers.BUSINESS_SOURCE_OF_FUNDS",
        "ContactVerificationStatus": ["PENDING", "VERIFIED"],
        "StablecoinProvider": "payments.models.stablecoins.StablecoinProvider",
        "StablecoinExternalAccountTypeEnum": ["EXTERNAL_ACCOUNT"],
        "StablecoinServiceInternalAccountTypeEnum": ["SERVICE_INTERNAL_ACCOUNT"],
        "StablecoinProviderInternalBalanceTypeEnum": ["PROVIDER_INTERNAL_BALANCE"],
        "StablecoinOperationSourceTypeEnum": "payments.wire.stablecoins.SOURCE_TYPES",
        "AgentPermission": "payments.wire.agents.PERMISSIONS",
        "AgentExecutionMode": "payments.wire.agents.EXECUTION_MODES",
        "AgentActionStatus": "payments.models.AgentAction.Status",
        "AgentActionType": "payments.models.AgentAction.Type",
    },
    # The BasicAuth scheme and each operation's use of it come from payments/api/schema_auth.py.
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "payments.api.openapi.document_errors_and_ids",
        "payments.api.openapi_webhooks.document_webhooks",
    ],
}

# The embedded default is a SQLite file through kombu's SQLAlchemy transport (project/broker.py).
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", f"sqlite:///{DATA_DIR / 'celery-broker.sqlite3'}")
if CELERY_BROKER_URL.startswith("sqlite:"):
    from project.broker import SQLITE_TRANSPORT_OPTIONS

    CELERY_BROKER_TRANSPORT = "project.broker:Transport"
    CELERY_BROKER_TRANSPORT_OPTIONS = SQLITE_TRANSPORT_OPTIONS
# Requests hand tasks to a background thread (project/publishing.py); off: publish in the caller's thread.
CELERY_PUBLISH_IN_BACKGROUND = env_bool("CELERY_PUBLISH_IN_BACKGROUND", default=True)
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", default=60)
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", default=90)
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Celery otherwise closes the database connections around every task; opening a PostgreSQL connection
# per task cost the webhook bench about half its throughput. Kept connections still follow CONN_MAX_AGE
# and the health check, applied before each task in project/celery.py.
CELERY_DB_REUSE_MAX = 1000
CELERY_BEAT_SCHEDULE: dict = {
    # Queues webhook events whose delivery task was lost (broker or worker down); see payments/webhooks.py.
    "webhook-sweep": {
        "task": "payments.tasks.webhook_sweep_task",
        "schedule": 30.0,
        "options": {"expires": 25},
    },
}
CELERY_BEAT_SCHEDULE["wallet-settle-sweep"] = {  # PROCESSING wallet operations whose settle task was lost
    "task": "wallets.tasks.wallet_operations_settle_due_task",
    "schedule": 30.0,
    "options": {"expires": 25},
}
# Due sandbox steps and quote expiries, and due stablecoin mint and burn steps: the relay queues their
# tasks (payments/due_steps.py).
CELERY_BEAT_SCHEDULE["transaction-steps-relay"] = {
    "task": "payments.tasks.transaction_steps_relay_task",
    "schedule": 1.0,
    "options": {"expires": 5},
}
# Expired Idempotency-Keys (payments/idempotency.py); an expired key is free even before it is swept.
CELERY_BEAT_SCHEDULE["idempotency-keys-sweep"] = {
    "task": "payments.tasks.idempotency_keys_sweep_task",
    "schedule": 3600.0,
    "options": {"expires": 600},
}
CELERY_BEAT_SCHEDULE["bulk-uploads-sweep"] = {  # unfinished bulk imports whose task was lost
    "task": "payments.tasks.bulk_uploads_sweep_task",
    "schedule": 60.0,
    "options": {"expires": 55},
}
if CELERY_BROKER_URL.startswith("sqlite:"):
    CELERY_BEAT_SCHEDULE["broker-prune"] = {  # messages the worker took (project/broker.py)
        "task": "project.celery.broker_prune_task",
        "schedule": 300.0,
        "options": {"expires": 290},
    }
CELERY_BEAT_SCHEDULE_FILENAME = str(DATA_DIR / "celerybeat-schedule")

# How long an Idempotency-Key and its answer are kept from first use (payments/idempotency.py).
IDEMPOTENCY_KEY_HOURS = env_int("IDEMPOTENCY_KEY_HOURS", default=24)

# Money limits (payments/limits.py) in US cents; a platform's own values (admin) take precedence.
TRANSACTION_SIZE_LIMIT_USD_CENTS = env_int("TRANSACTION_SIZE_LIMIT_USD_CENTS", default=100_000_000)  # $1M
DAILY_VOLUME_LIMIT_USD_CENTS = env_int("DAILY_VOLUME_LIMIT_USD_CENTS", default=1_000_000_000)  # $10M

# Ownership verification of self-custody wallets (payments/ownership.py): how long a challenge lives,
# and the transfer value (euro cents) above which an account still pending it is refused.
OWNERSHIP_CHALLENGE_SECONDS = env_int("OWNERSHIP_CHALLENGE_SECONDS", default=900)
OWNERSHIP_VERIFICATION_THRESHOLD_EUR_CENTS = env_int(
    "OWNERSHIP_VERIFICATION_THRESHOLD_EUR_CENTS", default=100_000
)

# Webhook delivery (payments/webhooks.py; README "Webhooks"). Timeouts apply to every POST; attempt n
# waits a random 1 s..min(MAX, BASE * FACTOR^(n-1)) after failing; after MAX_ATTEMPTS the event FAILED.
WEBHOOK_CONNECT_TIMEOUT_SECONDS = float(os.environ.get("WEBHOOK_CONNECT_TIMEOUT_SECONDS", "5"))
WEBHOOK_READ_TIMEOUT_SECONDS = float(os.environ.get("WEBHOOK_READ_TIMEOUT_SECONDS", "10"))
WEBHOOK_MAX_ATTEMPTS = env_int("WEBHOOK_MAX_ATTEMPTS", default=8)
WEBHOOK_BACKOFF_BASE_SECONDS = env_int("WEBHOOK_BACKOFF_BASE_SECONDS", default=30)
WEBHOOK_BACKOFF_FACTOR = 4
WEBHOOK_BACKOFF_MAX_SECONDS = 12 * 3600
# A worker sends the events its tasks name in batches (payments/webhook_worker.py): at most BATCH_SIZE
# events a batch, one lane per endpoint (LANES at once), no POST started after BATCH_SECONDS.
WEBHOOK_BATCH_SIZE = env_int("WEBHOOK_BATCH_SIZE", default=100)
WEBHOOK_LANES = env_int("WEBHOOK_LANES", default=8)
WEBHOOK_BATCH_SECONDS = 30
# An attempt's claim: outlives a batch (its last POST starts by BATCH_SECONDS and ends within the timeouts).
WEBHOOK_LEASE_SECONDS = CELERY_TASK_TIME_LIMIT + 30
WEBHOOK_COUNTDOWN_MAX_SECONDS = 900  # longer waits are left to the sweeper, not held by the broker
WEBHOOK_REQUEUE_AFTER_SECONDS = 300  # a queued task not run by then is presumed lost
WEBHOOK_SWEEP_BATCH = 1000

MAILERS = {
    "default": {"BACKEND": os.environ.get("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")}
}
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "no-reply@localhost")

# Logs (README "Logs"): one JSON object a line in production (LOG_FORMAT=json; text in sandbox mode),
# each with the request id of the request it belongs to, or of the request whose task it is
# (django-log-request-id; project/request_ids.py carries it into Celery tasks). A request id sent in
# X-Request-Id (e.g. by the load balancer) is used as is; otherwise one is made. Answers carry it.
LOG_FORMAT = os.environ.get("LOG_FORMAT", "json" if PRODUCTION else "text")
if LOG_FORMAT not in ("json", "text"):
    raise ImproperlyConfigured("LOG_FORMAT must be 'json' or 'text'")
LOG_REQUEST_ID_HEADER = "HTTP_X_REQUEST_ID"
GENERATE_REQUEST_ID_IF_NOT_IN_HEADER = True
REQUEST_ID_RESPONSE_HEADER = "X-Request-Id"
NO_REQUEST_ID = "-"
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        # Django logs the path of 4xx answers; on the hosted onboarding pages it holds the link's token.
        "onboarding_tokens": {"()": "payments.hosted.log_redaction.RedactOnboardingTokens"},
        "request_id": {"()": "log_request_id.filters.RequestIDFilter"},
    },
    "formatters": {
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "format": "{asctime}{levelname}{name}{message}{request_id}{process}",
            "style": "{",
            "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
            "timestamp": False,
        },
        "text": {"format": "{levelname} {name} [{request_id}] {message}", "style": "{"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["onboarding_tokens", "request_id"],
            "formatter": LOG_FORMAT,
        }
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    # httpx logs every webhook POST with its URL at INFO; attempts are in the delivery log instead.
    # axes: a version banner at every start and a line per admin sign-in; failures are warnings.
    "loggers": {
        "django.server": {"level": "WARNING"},
        "httpx": {"level": "WARNING"},
        "axes": {"level": "WARNING"},
        # waitress warns "Task queue depth is N" on every request that waits for a thread.
        "waitress.queue": {"level": "ERROR"},
        # A line per task run (the due-steps relay runs every second); failures are errors.
        "celery.app.trace": {"level": "WARNING"},
        # Each failed readiness check is a warning with its traceback; the answer says which failed.
        "health_check": {"level": "ERROR"},
    },
}
# The worker and beat log through the same handlers (JSON in production) instead of Celery's own.
CELERY_WORKER_HIJACK_ROOT_LOGGER = LOG_FORMAT == "text"

# WebAuthn
WEBAUTHN_RP_ID = os.environ.get("WEBAUTHN_RP_ID", "localhost")
WEBAUTHN_RP_NAME = os.environ.get("WEBAUTHN_RP_NAME", "Payments")
# Browsers send the page's origin: by default the addresses `make run` serves on (HOST, PORT).
_web_host, _web_port = os.environ.get("HOST", "127.0.0.1"), os.environ.get("PORT", "8000")
_web_origins = [f"http://localhost:{_web_port}", f"http://127.0.0.1:{_web_port}"]
if _web_host not in ("127.0.0.1", "localhost", "0.0.0.0", "::", "::1", ""):  # noqa: S104 (not a bind)
    _web_origins.append(f"http://{_web_host}:{_web_port}")
WEBAUTHN_ALLOWED_ORIGINS = env_list("WEBAUTHN_ALLOWED_ORIGINS", default=_web_origins)

# OIDC
# Issuer URL -> {"jwks_uri": ...} or {"discovery": ".../.well-known/openid-configuration"}.
OIDC_ISSUERS: dict[str, dict[str, str]] = {
    "https://accounts.google.com": {
        "discovery": "https://accounts.google.com/.well-known/openid-configuration"
    },
    "https://appleid.apple.com": {"discovery": "https://appleid.apple.com/.well-known/openid-configuration"},
}
if os.environ.get("OIDC_ISSUERS_JSON"):
    OIDC_ISSUERS = json.loads(os.environ["OIDC_ISSUERS_JSON"])
    if not isinstance(OIDC_ISSUERS, dict) or not all(
        isinstance(config, dict) and ("jwks_uri" in config or "discovery" in config)
        for config in OIDC_ISSUERS.values()
    ):
        raise ImproperlyConfigured(
            'OIDC_ISSUERS_JSON must map issuer URLs to {"jwks_uri": ...} or {"discovery": ...}'
        )
OIDC_JWKS_CACHE_SECONDS = env_int("OIDC_JWKS_CACHE_SECONDS", default=3600)

# Development OIDC provider (project/dev_oidc; README "Development OIDC provider"), served at /dev-oidc/.
# Its issuer names the site's host and port; it is trusted as an OIDC issuer while enabled.
DEV_OIDC_ENABLED = env_bool("DEV_OIDC_ENABLED", default=SANDBOX)
DEV_OIDC_ISSUER = os.environ.get(
    "DEV_OIDC_ISSUER", f"http://localhost:{os.environ.get('PORT', '8000')}/dev-oidc"
).rstrip("/")
# client id -> {"client_secret", "redirect_uris"}; loopback redirect URIs match on any port (RFC 8252).
DEV_OIDC_CLIENTS: dict[str, dict] = {
    "portal": {
        "client_secret": "dev-portal-secret",
        "redirect_uris": ["http://localhost:8000/oauth/callback", "http://127.0.0.1:8000/oauth/callback"],
    }
}
if os.environ.get("DEV_OIDC_CLIENTS_JSON"):
    DEV_OIDC_CLIENTS = json.loads(os.environ["DEV_OIDC_CLIENTS_JSON"])
    if not isinstance(DEV_OIDC_CLIENTS, dict) or not all(
        isinstance(c, dict)
        and isinstance(c.get("client_secret"), str)
        and isinstance(c.get("redirect_uris"), list)
        for c in DEV_OIDC_CLIENTS.values()
    ):
        raise ImproperlyConfigured(
            'DEV_OIDC_CLIENTS_JSON must map client ids to {"client_secret": ..., "redirect_uris": [...]}'
        )
if DEV_OIDC_ENABLED:
    OIDC_ISSUERS.setdefault(DEV_OIDC_ISSUER, {"jwks_uri": f"{DEV_OIDC_ISSUER}/jwks"})

# The rail adapter (payments/rails/): dotted path of a payments.rails.Rail class. Rails stay simulated.
PAYMENT_RAIL_ADAPTER = os.environ.get("PAYMENT_RAIL_ADAPTER", "payments.rails.sandbox.SandboxRail")

# Embedded-wallet authentication (wallets/; README "Embedded wallets").
# Dotted path of a class with send(*, to, message); wallets.sms.LocmemSmsBackend keeps an outbox.
SMS_BACKEND = os.environ.get("SMS_BACKEND", "wallets.sms.ConsoleSmsBackend")
WALLET_SESSION_SECONDS = env_int("WALLET_SESSION_SECONDS", default=900)
WALLET_SIGNED_REQUEST_SECONDS = env_int("WALLET_SIGNED_REQUEST_SECONDS", default=300)
WALLET_OTP_MAX_FAILED_ATTEMPTS = env_int("WALLET_OTP_MAX_FAILED_ATTEMPTS", default=5)
WALLET_OTP_LOCK_SECONDS = env_int("WALLET_OTP_LOCK_SECONDS", default=900)
WALLET_OTP_CHALLENGES_PER_WINDOW = env_int("WALLET_OTP_CHALLENGES_PER_WINDOW", default=5)
WALLET_OTP_CHALLENGE_WINDOW_SECONDS = env_int("WALLET_OTP_CHALLENGE_WINDOW_SECONDS", default=600)
WALLET_SANDBOX_SLOW_SECONDS = env_int("WALLET_SANDBOX_SLOW_SECONDS", default=5)  # `slow-wallet` switch

# Strong Customer Authentication (payments/sca/; README "Strong Customer Authentication").
SCA_CHALLENGE_SECONDS = env_int("SCA_CHALLENGE_SECONDS", default=300)
SCA_SESSION_DAYS = env_int("SCA_SESSION_DAYS", default=180)
SCA_RESET_SECONDS = env_int("SCA_RESET_SECONDS", default=1800)  # a factor reset's window
SCA_RESEND_COOLDOWN_SECONDS = env_int("SCA_RESEND_COOLDOWN_SECONDS", default=30)
SCA_CODES_PER_CHALLENGE = env_int("SCA_CODES_PER_CHALLENGE", default=5)
SCA_LOGIN_CODES_PER_WINDOW = env_int("SCA_LOGIN_CODES_PER_WINDOW", default=5)
SCA_LOGIN_CODE_WINDOW_SECONDS = env_int("SCA_LOGIN_CODE_WINDOW_SECONDS", default=600)

# Contact verification of customers (payments/contact_verification.py; README "Contact verification").
CONTACT_VERIFICATION_CODE_SECONDS = env_int("CONTACT_VERIFICATION_CODE_SECONDS", default=600)
CONTACT_VERIFICATION_MAX_FAILED_ATTEMPTS = env_int("CONTACT_VERIFICATION_MAX_FAILED_ATTEMPTS", default=5)
CONTACT_VERIFICATION_LOCK_SECONDS = env_int("CONTACT_VERIFICATION_LOCK_SECONDS", default=900)
CONTACT_VERIFICATION_CODES_PER_WINDOW = env_int("CONTACT_VERIFICATION_CODES_PER_WINDOW", default=5)
CONTACT_VERIFICATION_CODE_WINDOW_SECONDS = env_int("CONTACT_VERIFICATION_CODE_WINDOW_SECONDS", default=600)
# Device code redemptions per client address per window (payments/api/throttles.py), then 429.
AGENT_DEVICE_CODE_REDEEMS_PER_WINDOW = env_int("AGENT_DEVICE_CODE_REDEEMS_PER_WINDOW", default=10)
AGENT_DEVICE_CODE_REDEEM_WINDOW_SECONDS = env_int("AGENT_DEVICE_CODE_REDEEM_WINDOW_SECONDS", default=60)

# UMA invitations (payments/invitations.py; README "Invitations"): an invitation's `url` is this plus its code.
INVITATION_URL_BASE = os.environ.get("INVITATION_URL_BASE", "https://uma.me/i/")

# The end-user portal (wallets/portal/; README "Portal"): an integrator of the service, over HTTP.
PORTAL_SERVICE_BASE_URL = os.environ.get(
    "PORTAL_SERVICE_BASE_URL", f"http://127.0.0.1:{os.environ.get('PORT', '8000')}/{API_PREFIX.rstrip('/')}"
).rstrip("/")
# The portal's platform API token. Unset in sandbox mode: read from $DATA_DIR/portal-credentials.json,
# which `make run` writes on its first run. Required in production.
PORTAL_CLIENT_ID = os.environ.get("PORTAL_CLIENT_ID", "")
PORTAL_CLIENT_SECRET = os.environ.get("PORTAL_CLIENT_SECRET", "")
# Seals the session signing keys the portal keeps (32 bytes, urlsafe base64). Sandbox: derived from
# the development secret when unset; production: required (a system check and the portal refuse without).
PORTAL_SECRETS_KEY = os.environ.get("PORTAL_SECRETS_KEY", "")
if not PORTAL_SECRETS_KEY and SANDBOX:
    PORTAL_SECRETS_KEY = base64.urlsafe_b64encode(
        hashlib.sha256(b"portal-secrets-key\0" + SERVICE_SECRETS_KEY.encode()).digest()
    ).decode()
# Pinned bundle-signing keys of the service (GET /auth/service-keys); unset: read from the service.
PORTAL_OTP_SIGNER_PUBLIC_KEY = os.environ.get("PORTAL_OTP_SIGNER_PUBLIC_KEY", "")
PORTAL_EXPORT_SIGNER_PUBLIC_KEY = os.environ.get("PORTAL_EXPORT_SIGNER_PUBLIC_KEY", "")
# OAuth sign-in (OIDC, code + PKCE); off when the issuer or the client secret is empty.
# Default: the development provider and its client `portal` (DEV_OIDC_CLIENTS), while it is on.
PORTAL_OIDC_ISSUER = os.environ.get("PORTAL_OIDC_ISSUER", DEV_OIDC_ISSUER if DEV_OIDC_ENABLED else "")
PORTAL_OIDC_ISSUER = PORTAL_OIDC_ISSUER.rstrip("/")
PORTAL_OIDC_CLIENT_ID = os.environ.get("PORTAL_OIDC_CLIENT_ID", "portal")
PORTAL_OIDC_CLIENT_SECRET = os.environ.get(
    "PORTAL_OIDC_CLIENT_SECRET", "dev-portal-secret" if SANDBOX else ""
)
PORTAL_WEBAUTHN_RP_ID = os.environ.get("PORTAL_WEBAUTHN_RP_ID", WEBAUTHN_RP_ID)
PORTAL_WEBAUTHN_RP_NAME = os.environ.get("PORTAL_WEBAUTHN_RP_NAME", WEBAUTHN_RP_NAME)
PORTAL_REAUTH_SECONDS = env_int("PORTAL_REAUTH_SECONDS", default=300)  # a "fresh" sign-in, for changes
PORTAL_OTP_RESEND_SECONDS = env_int("PORTAL_OTP_RESEND_SECONDS", default=30)  # between code resends
# How often a signed-in browser's service session is asked about (signed out once it was revoked).
PORTAL_SESSION_CHECK_SECONDS = env_int("PORTAL_SESSION_CHECK_SECONDS", default=30)
# Rate limits of the sign-in pages (wallets/portal/throttle.py): per client IP, then per email address
# (by default the service's own code quota and lock, so unknown addresses answer like known ones).
PORTAL_SIGNUPS_PER_HOUR = env_int("PORTAL_SIGNUPS_PER_HOUR", default=10)
PORTAL_SIGNINS_PER_10_MINUTES = env_int("PORTAL_SIGNINS_PER_10_MINUTES", default=30)
PORTAL_CODE_ENTRIES_PER_10_MINUTES = env_int("PORTAL_CODE_ENTRIES_PER_10_MINUTES", default=50)
PORTAL_CODES_PER_EMAIL_PER_10_MINUTES = env_int("PORTAL_CODES_PER_EMAIL_PER_10_MINUTES", default=5)
PORTAL_WRONG_CODES_PER_15_MINUTES = env_int("PORTAL_WRONG_CODES_PER_15_MINUTES", default=5)

# Content-Security-Policy on every response (README "Content-Security-Policy"): scripts, styles and
# everything else from this origin only; no inline script, no eval, no plugins, no framing.
# form-action also governs the redirects that follow a form post (Chromium checks every hop): the
# portal's OAuth sign-in posts to /oauth/login/, which redirects to the provider, so the provider's
# origin is listed; the development provider's page adds its client's redirect URI itself.
CSP_FORM_ACTION = [
    *filter(None, [url_origin(PORTAL_OIDC_ISSUER)]),
    *env_list("CSP_FORM_ACTION", default=[]),
]
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "frame-ancestors": [CSP.NONE],
    "form-action": [CSP.SELF, *CSP_FORM_ACTION],
    # The portal's Cards page frames the service's card-details page (payments/cards/views.py).
    "frame-src": [CSP.SELF, *filter(None, [url_origin(PORTAL_SERVICE_BASE_URL)])],
}
