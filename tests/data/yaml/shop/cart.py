"""The shopping cart (test data)."""


def cart_total(prices: list[float], discount: float) -> float:
    """Return the total of the cart after the discount."""
    return sum(prices) * (1 - discount)
