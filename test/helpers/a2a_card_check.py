"""Checks A2A cards with the official a2a-sdk (PyPI), as an SDK user would meet them.

v1.0 cards are parsed by the SDK's protobuf schema, refusing unknown fields, and every field that schema marks
REQUIRED (google.api.field_behavior) must be present: protobuf JSON drops an empty list, so an empty required list
is missing too. v0.3 cards are validated by the SDK's v0.3 model (a2a.compat.v0_3.types.AgentCard).
Reads {"cards": {"<name>": {"spec": "1.0" | "0.3", "card": {...}}}} on stdin; prints {"problems": {"<name>": [...]}}.
"""
import json
import sys

from google.api import field_behavior_pb2
from google.protobuf.json_format import ParseDict
from pydantic import ValidationError

from a2a.compat.v0_3.types import AgentCard as AgentCardV03
from a2a.types.a2a_pb2 import AgentCard

REQUIRED = field_behavior_pb2.FieldBehavior.REQUIRED


def is_required(field):
    return REQUIRED in field.GetOptions().Extensions[field_behavior_pb2.field_behavior]


def is_repeated(field):
    return field.is_repeated if hasattr(field, "is_repeated") else field.label == field.LABEL_REPEATED


def missing_required(message, path=""):
    """The JSON paths of required fields absent from `message` and the messages inside it."""
    problems = []
    for field in message.DESCRIPTOR.fields:
        where = f"{path}{field.json_name}"
        value = getattr(message, field.name)
        if is_repeated(field):
            if is_required(field) and len(value) == 0:
                problems.append(where)
            if field.message_type is None:
                continue
            if field.message_type.GetOptions().map_entry:
                value_field = field.message_type.fields_by_name["value"]
                if value_field.message_type is not None:
                    for key, item in value.items():
                        problems += missing_required(item, f"{where}[{key}].")
            else:
                for i, item in enumerate(value):
                    problems += missing_required(item, f"{where}[{i}].")
        elif field.message_type is not None:
            if message.HasField(field.name):
                problems += missing_required(value, f"{where}.")
            elif is_required(field):
                problems.append(where)
        elif is_required(field) and value == field.default_value:
            problems.append(where)
    return problems


def card_problems(spec, raw):
    try:
        if spec == "0.3":
            AgentCardV03.model_validate(raw)
            return []
        return missing_required(ParseDict(raw, AgentCard(), ignore_unknown_fields=False))
    except ValidationError as error:
        return [f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors()]
    except Exception as error:  # a parse error of the protobuf schema
        return [str(error)]


if __name__ == "__main__":
    job = json.load(sys.stdin)
    report = {name: card_problems(entry["spec"], entry["card"]) for name, entry in job["cards"].items()}
    print(json.dumps({"problems": report}))
