"""Connection options shared by the onefs_* modules (module_utils/onefs.py)."""

from __future__ import annotations


class ModuleDocFragment:
    DOCUMENTATION = r"""
notes:
  - The modules read the cluster's C(/platform/latest) and use, for each resource, the
    newest API version they know that the cluster serves (a cluster answers 404 above
    its latest version), so one module works on OneFS 9.1 (API 11) and 9.10 (API 21).
options:
  onefs_host:
    description: Address of the cluster's API (any node, or the SmartConnect name).
    type: str
    required: true
  port_no:
    description: API port.
    type: int
    default: 8080
  api_user:
    description: API user.
    type: str
    required: true
  api_password:
    description: API password (keep it in Ansible Vault or the environment).
    type: str
    required: true
  verify_ssl:
    description: Verify the API's TLS certificate (turn off only on purpose).
    type: bool
    default: true
  ca_path:
    description: CA bundle that signed the API's certificate.
    type: path
  auth:
    description: Session authentication (cookie, CSRF header and Referer) or HTTP basic.
    type: str
    default: session
    choices: [session, basic]
  timeout:
    description: Seconds per request.
    type: int
    default: 30
  retries:
    description: >-
      Retries, with exponential backoff, of GET, PUT and DELETE requests after a
      connection error or a 5xx answer; a POST is never repeated.
    type: int
    default: 3
"""

    # The SmartPools action options of the default and the named file pool policies.
    ACTIONS = r"""
options:
  apply_data_storage_policy:
    description: Data storage target.
    type: dict
    suboptions:
      storagepool:
        description: Tier or node pool name, or C(anywhere).
        type: str
        required: true
      ssd_strategy:
        description: How SSDs are used.
        type: str
        default: metadata
        choices: [metadata, metadata-write, data, avoid]
  apply_snapshot_storage_policy:
    description: Snapshot storage target.
    type: dict
    suboptions:
      storagepool:
        description: Tier or node pool name, or C(anywhere).
        type: str
        required: true
      ssd_strategy:
        description: How SSDs are used.
        type: str
        default: metadata
        choices: [metadata, metadata-write, data, avoid]
  set_requested_protection:
    description: Requested protection, e.g. C(default) or C(+2d:1n).
    type: str
  set_data_access_pattern:
    description: Data access pattern.
    type: str
    choices: [random, concurrency, streaming]
  enable_coalescer:
    description: SmartCache (write coalescer).
    type: bool
"""
