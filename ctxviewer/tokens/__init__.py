"""Counting tokens: tiktoken counts offline, endpoint profiles (which encoding, context window and
framing a model name means), and the accounting of a serialized request by the endpoint's rule.

What lives here: :mod:`.counting` (counts, the bundled encodings, counting over the cores),
:mod:`.profiles` (model name -> encoding, capacity, limits, framing, tool and image rules),
:mod:`.model_names` (the names a routed model name is looked up by: gateway prefixes, Bedrock
ARNs and cross-region profiles),
:mod:`.request_accounting` (a raw request counted part by part), :mod:`.item_rule` (an item's
stored rendering of a tool definition or tool call counted as the endpoint counts what was sent) and :mod:`.images` (image tokens
from the image's header), :mod:`.placeholders` (the image placeholders an item's text holds instead
of base64, written by the importers and taken back out for counting), :mod:`.catalogue` (the model catalogue: a model's context window
when the trace recorded none, from genai-prices' bundled data and the profiles), :mod:`.cost` (a call's
cost in US dollars from its recorded usage, priced by genai-prices; "not known", never 0) and
:mod:`.price_rates` (its arithmetic from genai-prices' rates, looked up once per model price) and
:mod:`.price_library` (genai-prices imported without its price-update client), :mod:`.price_memo`
(genai-prices' answers kept on disk under the installed package's identity, so a one-trace command
does not import it again), and
:mod:`.recorded_cost` (the cost a trace's own tool recorded, said beside the list price when they differ).

May import: :mod:`ctxviewer.util` only (no trace model: these count text and request bodies). No Qt here.

A new endpoint's rule goes into ``ctxviewer/resources/endpoint_profiles.json`` (data); a new
way of counting goes here.
"""
