"""Values a person would type: built-in pools of realistic phrases per kind of free-text field.

A field's kind is inferred from its name and its entity's name (`memo`, `reason`, `note`,
`message`, `subject`, `description`, `merchant`, `title`, `nickname`, ...); `kind_of` returns None
for fields no pool fits (names, addresses, codes), which keep their Faker provider. The seed-data
plan (`seeddata.py`) and the task proposer (`tasks/propose/values.py`) draw from the same pools,
so an agent is asked to type what the world's own rows hold. A seed overrides a field's pool with
`gen: {pool: [...]}`. Every pick goes through the caller's seeded `random.Random`: same seed, same
values.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

# Reasons by what is being done, the first theme whose words the workflow or field names wins
# (specific first: a host cancelling is not a guest cancelling): a rejected expense is never
# "The book drop was closed", a host's cancellation never "Found a better rate elsewhere".
REASON_THEMES: tuple[tuple[frozenset[str], tuple[str, ...]], ...] = (
    (frozenset({"host", "landlord", "owner", "seller", "vendor", "provider"}), (
        "Maintenance issue at the property", "The calendar was double-booked", "Emergency repairs needed",
        "The place is not available those dates", "Pipe burst in the bathroom", "Family is staying that week",
    )),
    (frozenset({"reject", "deny", "decline", "approve", "approval", "expense", "claim", "reimbursement"}), (
        "Missing receipts", "Over the budget limit", "Needs more detail", "Not a business expense",
        "Wrong cost centre", "Submitted twice", "Receipt is unreadable", "Needs the client's name",
    )),
    (frozenset({"lock", "freeze", "block", "suspend", "disable", "card"}), (
        "Lost my wallet", "Suspicious activity", "Travelling abroad", "Card left at a restaurant",
        "Saw a charge I don't recognise", "Keeping it safe while I'm away",
    )),
    (frozenset({"fee", "fine", "charge", "waive", "waiver", "dispute", "penalty", "bill", "late"}), (
        "I returned it on time but the system marked it late", "Duplicate charge", "Charged twice for the same month",
        "First late fee, asking for a one-time courtesy", "I was in the hospital that week", "The book drop was closed",
        "Paid in person already", "I was out of town",
    )),
    (frozenset({"return", "refund", "order", "item", "product", "purchase"}), (
        "The item was damaged when I got it", "Ordered the wrong size", "Service was not as described",
        "Arrived too late to use", "No longer needed", "Found it cheaper elsewhere",
    )),
    (frozenset(), (  # cancelling, rescheduling, leaving: what a customer says
        "Plans changed", "Found a better rate elsewhere", "Family emergency", "Booked by mistake",
        "Schedule conflict", "Work travel came up", "Moving out of the area", "Weather delay",
    )),
)


# Reasons a task asks an agent to type where no theme's words fit the act (excusing a submission,
# reassigning a shift): words any domain's staff would write, never another domain's story ("Booked
# by mistake" as a reason to excuse coursework). The seed data keeps the themes above.
NEUTRAL_REASONS: tuple[str, ...] = (
    "As discussed with the team", "Special circumstances", "Agreed exception, see notes",
    "Documentation provided", "Per our policy", "Confirmed after review",
)
# Notes a task asks an agent to type where the world has none of its own: words any domain's
# staff would write ("Please call before delivery" is a courier's note, not a shift's; "Needs a
# manager's sign-off" an office's, not a course's feedback).
NEUTRAL_NOTES: tuple[str, ...] = (
    "Follow up next week", "Noted for next time", "Discussed on the phone", "Please confirm when done",
    "See the comments above", "Keep for the records", "Checked with the team first",
)
# Titles a task asks an agent to type where the world has none of its own: a piece of work any
# domain has, never another domain's story ("Ski season" as a freelance project).
NEUTRAL_TITLES: tuple[str, ...] = (
    "Spring update", "Annual review", "Pilot phase", "Q3 plan", "Process refresh", "Customer survey",
    "Second round", "Follow-up work",
)
# Messages of a stay (a guest to a host and back), only where the field belongs to one: a help
# desk's reply is never "Do you have a crib we could use?".
STAY_MESSAGES: tuple[str, ...] = (
    "Hi, could you confirm the check-in time?", "Thanks so much, see you then!",
    "Just wanted to follow up on my earlier message.", "Is parking available nearby?",
    "Could we move this to next Tuesday?", "Running about 15 minutes late, sorry!",
    "Can you send me the receipt when you get a chance?", "Looks good to me, go ahead.",
    "Do you have a crib we could use?", "Thanks for the quick reply.",
    "Let me know if you need anything else from me.", "Could you resend the document? The link expired.",
    "Happy to help, just tell me what works.", "Is early check-in possible?",
    "We'll be a party of four.", "Sorry for the mix-up, all sorted now.",
)
_STAY_WORDS = frozenset({"stay", "stays", "booking", "bookings", "guest", "guests", "host", "hosts", "listing",
                         "listings", "reservation", "reservations", "trip", "trips"})
# The words of the acts the customer's catch-all theme speaks for.
_CUSTOMER_ACTS = frozenset({"cancel", "cancellation", "reschedule", "leave", "withdraw", "drop", "booking",
                            "reservation", "trip", "stay", "guest", "rental"})


POOLS: dict[str, tuple[str, ...]] = {
    "memo": (
        "Rent for June", "Dinner with Sam", "Monthly savings", "Car repair", "Groceries", "Birthday gift",
        "Utilities share", "Concert tickets", "Gym membership", "Holiday fund", "Paying you back for lunch",
        "Phone bill split", "Weekend trip", "Vet visit", "Books for class", "Wedding gift", "Moving costs",
        "Babysitting", "Emergency fund top-up", "Internet bill", "Tuition deposit", "Home insurance",
        "Christmas presents", "Coffee fund", "Deposit for the cabin", "Thanks for the tickets",
        "Groceries this week", "Cleaning service", "Parking permit", "Dentist copay",
    ),
    "reason": tuple(phrase for _, phrases in REASON_THEMES for phrase in phrases),  # no theme named
    "note": (
        "Please call before delivery", "Leave it at the front desk", "Allergic to peanuts", "Bring the receipts",
        "Back gate code is 4412", "Follow up next week", "Ask about the weekend rate", "Quiet room if possible",
        "Arriving late, around 10pm", "Remind me before it's due", "Split with Alex", "Needs a manager's sign-off",
        "Keep for tax records", "Check the second shelf", "Travelling with a small dog", "Ground floor please",
        "Pick up after 5pm", "For the team offsite", "Recurring every month", "Gift, no price tag please",
    ),
    "message": (  # what anyone writes to anyone: a stay's own words are `STAY_MESSAGES`
        "Just wanted to follow up on my earlier message.", "Could we move this to next Tuesday?",
        "Can you send me the receipt when you get a chance?", "Looks good to me, go ahead.",
        "Thanks for the quick reply.", "Let me know if you need anything else from me.",
        "Could you resend the document? The link expired.", "Happy to help, just tell me what works.",
        "Sorry for the mix-up, all sorted now.", "Any update on this?", "Thanks, that fixed it.",
        "I'll check and get back to you today.", "Could you give me a call when you are free?",
        "Still seeing the same problem this morning.", "Attached the details you asked for.",
        "Please go ahead, thanks for sorting it.",
    ),
    "subject": (
        "Quick question about my booking", "Lunch on Friday?", "Invoice for March", "Meeting notes",
        "Weekend plans", "Re: project timeline", "Updated schedule", "Your order has shipped",
        "Reminder: dentist appointment", "Photos from the trip", "Budget review", "Welcome aboard",
        "Rent receipt", "Can we reschedule?", "Team offsite agenda", "Book club this month",
    ),
    "description": (
        "Team lunch with the new hires", "Client visit in Chicago", "Office supplies for Q3",
        "Conference registration fee", "Taxi from the airport", "Hotel for the sales summit",
        "Replacement laptop charger", "Monthly software subscription", "Printer toner",
        "Training course materials", "Parking at the client site", "Coffee for the workshop",
        "Train tickets to Boston", "Dinner with the Acme team", "Shipping samples to a customer",
    ),
    "merchant": (
        "Trader Joe's", "Shell", "Blue Bottle Coffee", "Whole Foods Market", "Target", "Costco",
        "Home Depot", "Chipotle", "Uber", "Lyft", "Walgreens", "CVS Pharmacy", "Corner Hardware",
        "Delta Air Lines", "Marriott", "Amazon", "Best Buy", "Safeway", "Starbucks", "Panera Bread",
        "Joe's Pizza", "City Parking Garage", "AMC Theatres", "REI", "Barnes & Noble",
    ),
    "title": (
        "Summer trip", "Weekend getaways", "Q3 client visits", "Birthday plans", "Conference trip",
        "Home office setup", "Beach houses", "Family reunion", "Team offsite", "Ski season",
        "Places to try", "Spring break", "Anniversary weekend", "Reading list", "Road trip ideas",
    ),
    "nickname": (
        "Vacation Fund", "House Savings", "Bills Account", "Holiday Savings", "Daily Spending",
        "Car Fund", "Kids' College", "Travel Card", "Rainy Day", "Wedding Fund", "Tax Reserve",
        "Household", "Joint Account", "Grocery Card", "New Roof Fund",
    ),
    "listing": (
        "Bright one-bedroom a short walk from the old town, with a fully equipped kitchen and fast Wi-Fi.",
        "Quiet flat on a leafy street; the bakery downstairs opens at seven.",
        "Sunny top-floor apartment with a small balcony and views over the rooftops.",
        "Spacious family home with a garden, two bathrooms and free parking.",
        "Cosy studio close to the metro, ideal for a solo traveller or a couple.",
        "Renovated loft with high ceilings, a washer and a comfortable workspace.",
        "Steps from the beach; towels, an umbrella and two chairs are provided.",
        "Historic building with a lift, air conditioning and a shared courtyard.",
        "Calm retreat outside the centre, ten minutes by bus to the main square.",
        "Modern two-bedroom with blackout curtains, a dishwasher and self check-in.",
    ),
    "payee": (
        "Green Valley Dental", "Riverside Fitness", "Maple Street Daycare", "Evergreen Lawn Care",
        "Pinecrest HOA", "Bright Smiles Orthodontics", "Summit Auto Loan", "Lakeview Pediatrics",
        "Jordan Lee", "Maria Gomez", "Priya Raman", "Daniel Cho", "Northside Storage", "Clearview Window Cleaning",
        "County Tax Collector", "Oak Hill Tutoring", "Harbor Veterinary Clinic", "Sunrise Piano Lessons",
    ),
    "comment": (
        "Great stay, the host was very responsive.", "Clean and quiet, would book again.",
        "Smaller than the photos suggested.", "Perfect location for exploring the old town.",
        "Check-in was easy and the bed was comfortable.", "A bit noisy at night, otherwise fine.",
        "Lovely view from the balcony.", "Exactly as described.", "The kitchen had everything we needed.",
        "Would have liked better Wi-Fi.",
    ),
}

# The kinds whose phrases depend on what the field is about: the first theme whose words the
# workflow, entity or field names wins; the last theme (no words) is the catch-all.
_THEMES: dict[str, tuple[tuple[frozenset[str], tuple[str, ...]], ...]] = {
    "reason": REASON_THEMES,
    "message": ((_STAY_WORDS, STAY_MESSAGES), (frozenset(), POOLS["message"])),
}

# (pattern over "<entity>.<field>", kind); first match wins, so the specific come first.
_KINDS: tuple[tuple[str, str], ...] = (
    (r"\.(phone|email|street|address|city|state|country|postal|zip|url|website)", ""),
    (r"\.[a-z_]*(number|code|last4|last_four|key|username|password)$", ""),
    (r"\.[a-z_]*memo$", "memo"),
    (r"\.[a-z_]*reason$", "reason"),
    (r"\.[a-z_]*(note|notes|remark|remarks)$", "note"),
    (r"(note|memo|journal|diary)[a-z_]*\.(body|content|text)$", "note"),
    (r"(listing|property|room|home|stay|rental)[a-z_]*\.(description|summary|details|about)$", "listing"),
    (r"\.[a-z_]*(message|body|content|response|reply)[a-z_]*$", "message"),
    (r"\.[a-z_]*subject$", "subject"),
    (r"\.[a-z_]*(comment|review_text)$", "comment"),
    (r"\.[a-z_]*(merchant|vendor|store|shop)[a-z_]*$", "merchant"),
    (r"(transaction|purchase|charge)\.description$", "merchant"),
    (r"\.[a-z_]*(description|purpose|summary|details)$", "description"),
    (r"\.[a-z_]*nickname$", "nickname"),
    (r"(payee|biller|recipient)[a-z_]*\.name$|\.(payee|biller|recipient)_name$", "payee"),
    (r"(wishlist|list|collection|report|folder|trip|plan|project|album)[a-z_]*\.(name|title)$", "title"),
    (r"\.[a-z_]*(title|headline)$", "title"),
)


# What a seed's `{word}` in a template stands for: a topic people name their things by ("Travel
# notes", "Garden ideas"), never a lorem word ("exist notes").
TOPICS: tuple[str, ...] = (
    "Work", "Travel", "Recipes", "Garden", "Books", "Fitness", "Family", "Projects", "Ideas", "Home",
    "Music", "Health", "Budget", "School", "Movies", "Gifts", "Meetings", "Shopping", "Car", "Pets",
)


# Faker providers that only make filler; a field with a pool kind gets the pool instead, even when
# the seed names one of these (`gen: {faker: sentence}` on a memo reads as "some free text").
FILLER_PROVIDERS = frozenset({"sentence", "sentences", "paragraph", "paragraphs", "text", "texts", "catch_phrase",
                              "bs", "word", "words"})


def kind_of(entity: str, field: str) -> str | None:
    """The pool kind of a free-text field, from its name and its entity's; None when no pool fits."""
    key = f"{entity.lower()}.{field.lower()}"
    for pattern, kind in _KINDS:
        if re.search(pattern, key):
            return kind or None
    return None


def themed(kind: str | None, about: str, neutral: bool = False) -> tuple[str, ...]:
    """The kind's pool, narrowed for reasons to the first theme whose words `about` (a workflow's
    or an entity's name and a field's: "cancel_booking_as_host.reason") names; with `neutral`,
    an act no theme names gets `NEUTRAL_REASONS` rather than the customer's catch-all, and a note
    `NEUTRAL_NOTES`."""
    if kind in (None, "note") and neutral:
        return NEUTRAL_NOTES
    if kind == "title" and neutral:
        return NEUTRAL_TITLES
    themes = _THEMES.get(kind or "")
    if themes is None:
        return POOLS[kind or "note"]
    words = set(re.split(r"[^a-z]+", about.lower()))
    found = next(phrases for theme, phrases in themes if not theme or theme & words)
    if kind != "reason":
        return found
    if neutral and (found is not REASON_THEMES[-1][1] or not words & _CUSTOMER_ACTS):
        # a task's reason where the world has none: the themes are our own domains' stories ("The
        # book drop was closed" matched by the word "dispute"), so only the customer's own acts
        # (cancelling a booking) keep theirs
        return NEUTRAL_REASONS
    return found


def pick(kind: str | None, rng: random.Random, pool: Sequence[str] | None = None, max_length: int | None = None,
         avoid: frozenset[str] | set[str] = frozenset(), about: str = "", neutral: bool = False) -> str:
    """A value of the seed's own pool (when given) or the kind's (`themed` by what it is `about`),
    fitting `max_length`, drawn with `rng`; one not in `avoid` while any is left (an owner's rows
    read apart)."""
    phrases = list(pool) if pool else list(themed(kind, about, neutral))
    choices = [v for v in phrases if max_length is None or len(v) <= max_length]
    fresh = [v for v in choices if v not in avoid]
    choices = fresh or choices
    if not choices:  # every phrase too long: cut one rather than fall back to filler
        return rng.choice(phrases)[: max_length or None].rstrip()
    return rng.choice(choices)
