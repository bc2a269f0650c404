"""`payconnect`: the command line. Every failure is one line on stderr and a non-zero exit code.

Exit codes: 0 done (and ^C while listening), 1 the API refused or failed, 2 usage, 3 the API unreachable.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from datetime import UTC, datetime

from payconnect.cli.listen import Listener, ListenOptions, default_device_name
from payconnect.cli.trigger import SCENARIOS, TriggerError, run_trigger
from payconnect.client import Client
from payconnect.errors import APIConnectionError, APIError, PayConnectError
from payconnect.transport import DEFAULT_BASE_URL

__all__ = ["main"]

EXIT_API = 1
EXIT_USAGE = 2
EXIT_UNREACHABLE = 3


class UsageError(Exception):
    pass


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--api-key", help="a TEST secret key (default: $PAYCONNECT_API_KEY)")
    common.add_argument(
        "--api-base", help=f"the API's address (default: $PAYCONNECT_API_BASE or {DEFAULT_BASE_URL})"
    )
    parser = argparse.ArgumentParser(
        prog="payconnect", description="Develop against the Payment Connect sandbox."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    listen = commands.add_parser(
        "listen", parents=[common], help="forward the sandbox's events to a local URL"
    )
    listen.add_argument("--forward-to", metavar="URL", help="where to POST each event")
    listen.add_argument("--events", metavar="A,B", default="", help="only these event types")
    listen.add_argument("--print-secret", action="store_true", help="print the signing secret and exit")
    listen.add_argument("--device-name", default="", help="names this machine (default: the host name)")

    trigger = commands.add_parser("trigger", parents=[common], help="make the sandbox emit an event")
    trigger.add_argument("event", metavar="EVENT", help=f"one of: {', '.join(SCENARIOS)}")
    trigger.add_argument("--email", help="the account's login, for payout.failed ($PAYCONNECT_EMAIL)")
    trigger.add_argument("--password", help="its password ($PAYCONNECT_PASSWORD)")

    events = commands.add_parser("events", help="the event log")
    events_commands = events.add_subparsers(dest="events_command", required=True, metavar="COMMAND")
    resend = events_commands.add_parser(
        "resend", parents=[common], help="send an event to the endpoints again"
    )
    resend.add_argument("event_id", metavar="ID")

    commands.add_parser("reset", parents=[common], help="delete every TEST object (keys and endpoints stay)")

    clock = commands.add_parser("clock", help="the sandbox clock")
    clock_commands = clock.add_subparsers(dest="clock_command", required=True, metavar="COMMAND")
    advance = clock_commands.add_parser("advance", parents=[common], help="move TEST time forward")
    advance.add_argument("--to", required=True, metavar="T", help="Unix seconds or an ISO 8601 time (UTC)")
    return parser


def make_client(args: argparse.Namespace) -> Client:
    api_key = args.api_key or os.environ.get("PAYCONNECT_API_KEY", "")
    if not api_key:
        raise UsageError(
            "no API key: pass --api-key or set PAYCONNECT_API_KEY (a TEST secret key, sk_test_…)"
        )
    base = args.api_base or os.environ.get("PAYCONNECT_API_BASE") or DEFAULT_BASE_URL
    return Client(api_key, base)


def parse_time(text: str) -> int:
    if text.isdigit():
        return int(text)
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(f"--to: {text!r} is neither Unix seconds nor an ISO 8601 time") from None
    return int((moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp())


def run(args: argparse.Namespace) -> int:
    if args.command == "listen":
        if not args.print_secret and not args.forward_to:
            raise UsageError("listen needs --forward-to URL (or --print-secret)")
        events = tuple(e.strip() for e in args.events.split(",") if e.strip())
        options = ListenOptions(args.forward_to or "", events, args.device_name or default_device_name())
        with make_client(args) as client:
            listener = Listener(client, options)
            if args.print_secret:
                print(listener.open_session().secret)
                return 0
            try:
                listener.run()
            except KeyboardInterrupt:
                print("Stopped.", file=sys.stderr)
            return 0
    with make_client(args) as client:
        if args.command == "trigger":
            email = args.email or os.environ.get("PAYCONNECT_EMAIL")
            password = args.password or os.environ.get("PAYCONNECT_PASSWORD")
            ids = run_trigger(client, args.event, email, password)
            print(f"Triggered {args.event}")
            for name, object_id in ids.items():
                print(f"  {name}: {object_id}")
        elif args.command == "events":
            deliveries = client.events.resend(args.event_id)
            print(f"Resent {args.event_id} to {len(deliveries.get('data', []))} endpoint(s)")
        elif args.command == "reset":
            reset = client.test_helpers.reset()
            total = sum(reset.deleted.values())
            print(
                f"Deleted {total} TEST objects; keys and webhook endpoints kept, TEST clock back to real time"
            )
            for name, count in reset.deleted.items():
                if count:
                    print(f"  {name}: {count}")
        elif args.command == "clock":
            clock = client.test_helpers.advance_clock(to=parse_time(args.to))
            print(f"TEST time is now {datetime.fromtimestamp(clock.now, tz=UTC).isoformat()} ({clock.now})")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return run(args)
    except UsageError as exc:
        print(f"payconnect: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except APIConnectionError as exc:
        print(f"payconnect: cannot reach the API: {exc}", file=sys.stderr)
        return EXIT_UNREACHABLE
    except APIError as exc:
        print(f"payconnect: {exc}", file=sys.stderr)
        return EXIT_API
    except (TriggerError, PayConnectError) as exc:
        print(f"payconnect: error: {exc}", file=sys.stderr)
        return EXIT_API
    except KeyboardInterrupt:
        print("payconnect: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
