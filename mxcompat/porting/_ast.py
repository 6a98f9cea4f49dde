"""Small helpers over Python's ``ast`` shared by the static checks."""
import ast


def attribute_chain(node):
    """['mx', 'nd', 'foo'] for the expression ``mx.nd.foo`` (None when it does not start with a plain name)."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return parts[::-1]
    return None
