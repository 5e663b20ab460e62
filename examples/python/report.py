"""Monthly revenue report: one month's net revenue in US dollars.

Reads orders.csv (one row per order from the web shop, the shop tills and
the mobile app) and prints the month's revenue after refunds.

    python3 report.py [orders.csv] [YYYY-MM]
"""
import csv
import sys
from datetime import datetime, timezone
from decimal import ROUND_HALF_UP, Decimal

# US dollars per unit of each currency, from finance's month-end rate sheet.
USD_PER = {"USD": Decimal("1"), "EUR": Decimal("1.08"), "GBP": Decimal("1.27")}
CENT = Decimal("0.01")


def parse_created(value):
    """Order time: ISO 8601 from the web shop and tills, epoch milliseconds from the app."""
    value = value.strip()
    if value.isdigit():
        return datetime.fromtimestamp(int(value) / 1000, tz=timezone.utc)
    return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(timezone.utc)


def load_orders(path):
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            yield {
                "id": row["id"],
                "created": parse_created(row["created"]),
                "amount": Decimal(row["amount"]),
                "refund": Decimal(row["refund"] or "0"),
                "currency": row["currency"],
            }


def to_usd(amount, currency):
    usd = (amount * USD_PER[currency]).quantize(CENT, ROUND_HALF_UP)
    return usd


def net_usd(order):
    net = order["amount"] - order["refund"]
    return to_usd(net, order["currency"])


def month_of(order):
    return order["created"].strftime("%Y-%m")


def monthly_revenue(orders, month):
    total = Decimal("0")
    for order in orders:
        if month_of(order) == month:
            total += net_usd(order)
    return total


if __name__ == "__main__":
    path = sys.argv[1] if len(sys.argv) > 1 else "orders.csv"
    month = sys.argv[2] if len(sys.argv) > 2 else "2026-11"
    print(f"{month} revenue: {monthly_revenue(load_orders(path), month):,.2f} USD")
