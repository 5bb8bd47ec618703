"""The sixth engineering store, "Fresh": a real platform team's decision records and runbooks, written after
the scorer's rules were chosen, as a check on data it was never tuned on (``build_public.py`` builds it as
its own set, ``public/fresh``; see ``tests/eval/README.md``, "Public sets").

Source: the public repository ``ministryofjustice/cloud-platform`` (the Ministry of Justice's Cloud Platform
team: a Kubernetes hosting platform for the department's service teams; **MIT licence**, Copyright (c) 2018
Ministry of Justice), read at commit ``7f879f3af6cd39f8711ec99ee3b4d2163ff54024`` (2026-08-21). Files read:
``architecture-decision-record/001``-``049`` (the records with content; 028-031 are only links to private
documents), and the runbooks ``source/delete-state-lock``, ``node-group-changes``, ``upgrade-eks-cluster``,
``aws-leaked-credentials``, ``rotate-git-crypt-key``, ``incident-process``, ``block-public-ip-address``,
``cert-manager-errors``, ``velero``, ``working-with-tflock`` and ``how-we-work`` (``.html.md.erb``).

Each memory restates one record (ADR 022, a long record of many choices, gives six; ADRs 018/019, and
042/048/049, give one each) or one runbook in a few sentences of our own: the facts, names and numbers are the
source's, no passage is copied. Dates are the record's date; where a record's date is a later re-edit (ADR 022)
the status dates inside it are used, and runbooks take their ``last_reviewed_on`` date. The questions were
written for this set, before any measurement, in a teammate's words that mostly avoid the memory's title; they
are not from the source.

``FRESH``: ``(id, category, date, title, tags, content)``. ``FRESH_QUESTIONS``: ``(kind, prompt, [ids])``, kinds
``paraphrase``, ``detail``, ``task`` and ``short``. ``FRESH_DOMAIN``: words naming the store's subject (an
ordinary prompt with one of them, or a tag word, is "same domain").
"""
from __future__ import annotations

from platform_world import constraint, debt, decision, preference, runbook

FRESH = [
    # ---- decision records -----------------------------------------------------------------------------------
    ("managed-elasticsearch", "decision", "2018-02-05",
     "Application logs moved from our own ELK stack to AWS-hosted Elasticsearch",
     ["elasticsearch", "logging", "kibana", "aws"],
     decision("The team ran its own Elasticsearch, Logstash and Kibana cluster. It failed again and again (CPT-282, "
              "CPT-152), took close to a week a month to nurse back, stayed down so long that recovering its data "
              "was pointless, and left product teams blind to their application logs while it was broken.",
              "Delete the self-run ELK stacks in every environment and use the managed AWS Elasticsearch service; a "
              "Lambda function forwards CloudWatch Logs into it and Sensu alerting was pointed at the new cluster.",
              ["Cheaper than the self-hosted stack.", "No day-to-day care from the platform team."],
              ["We have no admin rights on the managed cluster: no Kibana plugins, no changes to its connection "
               "settings.", "Its health is checked through CloudWatch."])),
    ("concourse-ci", "decision", "2018-03-28", "Platform pipelines run on Concourse instead of Jenkins",
     ["concourse", "jenkins", "ci", "pipelines"],
     decision("The self-hosted Jenkins carried a mass of hand-made configuration, produced a stream of user tickets, "
              "had a recurring fault behind several outages (CPT-384) and would have been very hard to rebuild; "
              "about a week a month went on keeping it running.",
              "Replace it with a self-hosted Concourse, deployed into Kubernetes with Terraform and Helm, with every "
              "job written as code.",
              ["The move to Kubernetes called for a cloud-native CI.", "A broken Jenkins blocked product teams."],
              ["Itself being replaced by GitHub Actions as the platform moves to the Modernisation Platform."],
              status="superseded")),
    ("github-identity", "decision", "2018-04-09", "Everyone signs in to platform tools with their GitHub identity",
     ["github", "auth0", "sso", "identity"],
     decision("Access was spread over the Google domain, GitHub and AWS accounts: people struggled to get the right "
              "permissions, the lifecycle of joiners and leavers was hard to manage, and nobody could say who had "
              "access to what.",
              "GitHub is the platform's identity provider: users log in to every component with one GitHub id, "
              "users and teams are defined in GitHub, and Auth0 turns those identities into OIDC (or SAML when OIDC "
              "is not available) for tools that need it.",
              ["GitHub already held the most complete record of the first users and their teams.",
               "New tools are judged on how easily they integrate with GitHub or standard OIDC."])),
    ("ecr-image-alerts", "decision", "2019-07-04", "No image cap on ECR repositories; Prometheus alerts on counts instead",
     ["ecr", "prometheus", "alerts", "lifecycle-policy"],
     decision("Some repositories received images constantly and hit AWS's limit of 1000 images, so a lifecycle "
              "policy kept only the newest 100 per repository; teams pointed out that silently deleting images is "
              "dangerous unless they run their own clean-up.",
              "Remove the lifecycle policy and gather ECR metrics in Prometheus instead: an amber alert when a "
              "repository holds more than 500 images or the account has more than 500 repositories, a red alert "
              "above 800.",
              ["Teams keep control of their images and we act before a repository runs out of room."],
              ["An image-count alert means asking the owning team to delete old images.",
               "A repository-count alert means asking AWS to raise the limit."])),
    ("opa-policies", "decision", "2019-06-07", "Cluster admission rules are written as Open Policy Agent policies",
     ["opa", "gatekeeper", "admission", "ingress"],
     decision("Built-in controls such as ResourceQuotas and PodSecurityPolicies did not cover every rule a "
              "multi-tenant cluster needs. The first gap: a tenant could reuse a hostname already declared in "
              "another Ingress, and the ingress controller dropped it silently, with no error.",
              "Enforce policies with Open Policy Agent through Kubernetes' dynamic admission webhooks; the first "
              "policy refuses an Ingress whose host is already taken, with a useful message. Today the policies are "
              "Gatekeeper constraint templates kept in cloud-platform-terraform-gatekeeper.",
              ["A general policy framework with a declarative language and unit tests for policies.",
               "Built for cloud-native use, integrates with Kubernetes, adopted by the CNCF."],
              ["It was alpha software then, so we track its development and adapt."])),
    ("single-cluster", "decision", "2019-06-01", "Dev, staging and production namespaces share one cluster (superseded)",
     ["multi-tenancy", "namespaces", "cluster"],
     decision("The platform hosts citizen-facing production services as well as teams' development, staging and "
              "sandbox environments.",
              "Run a single cluster and separate workloads with namespaces and RBAC rather than keep a cluster per "
              "environment.",
              ["One cluster can be made big enough and keeps cost and effort down.",
               "Separate development clusters drift from production until they no longer represent it.",
               "If namespaces can isolate one production service from another, they can isolate a dev environment "
               "from production."],
              ["Superseded in 2022 by separate production and non-production clusters."], status="superseded")),
    ("shared-ingress", "decision", "2020-09-09",
     "Ingress: one shared default controller plus a mod-security pool, not one per namespace",
     ["ingress", "nginx", "modsecurity", "nlb"],
     decision("Every ingress in the cluster went through one nginx controller (usually 6 replicas) whose config had "
              "grown past 100K lines; pods crash-looped when they ran out of shared memory while reloading it. A "
              "controller and load balancer per namespace (ADR 18) proved impossible: each controller needs an AWS "
              "Network Load Balancer and AWS hard-limits NLBs per VPC and availability zone.",
              "Switch mod-security off on the default controller so it can carry thousands of ingresses, and run a "
              "managed pool of controllers with mod-security on, each given no more of those ingresses than it can "
              "reliably handle.",
              ["Most production services want a web application firewall, and mod-security is the easiest to enable."],
              ["In October 2020 an upgrade hit the AWS limit on security group rules; the remaining dedicated "
               "controllers were removed and their ingresses moved to the default controller.",
               "Ingresses should be declared in the environments repository so no team overloads a controller by "
               "using its ingress class."],
              [("a dedicated controller and load balancer for every namespace",
                "AWS caps NLBs per VPC and AZ; it also cost about $25 a month per load balancer")])),
    ("namespaces-repo", "decision", "2021-02-26", "Tenant environments are namespaces defined in the environments repository",
     ["namespaces", "environments-repo", "rbac", "networkpolicy"],
     decision("Teams must be able to declare the workloads and AWS infrastructure they want, start with PaaS-like "
              "defaults yet keep full control of their Kubernetes resources, and be isolated from other teams and "
              "between their own dev and prod.",
              "Each environment is a namespace described in the cloud-platform-environments repository: Kubernetes "
              "YAML (the namespace, limits, network policy) and Terraform for AWS resources such as RDS, S3, "
              "Elasticache and an ECR repository. A pull request is checked by automated workflows and reviewed by "
              "an engineer of the platform team; once merged, a pipeline applies it to the cluster and AWS account.",
              ["GitHub gives review, automated checks and history, which a web form or a CLI would not.",
               "Applying a namespace needs cluster-wide privileges, so a person checks for risks the bots cannot "
               "foresee."],
              ["RBAC confines a team to its own namespaces; a default NetworkPolicy admits traffic only from the "
               "same namespace and the ingress controllers.",
               "Teams get an admin kubeconfig for their namespace and can create a ServiceAccount for their CI."])),
    ("eks-migration", "decision", "2021-06-02", "The main cluster runs on Amazon EKS instead of kOps",
     ["eks", "kops", "kubernetes", "aws"],
     decision("In 2019 we built our own clusters with kOps, because EKS was not yet production ready and needed IAM "
              "for user authentication. Since then kOps rolling upgrades had gone badly (the 1.18 to 1.19 upgrade "
              "needed a networking workaround) and stood third on the team's risk register.",
              "Run the main tenant cluster on Amazon EKS with managed node groups; the old kOps cluster was switched "
              "off on 12 April 2022.",
              ["AWS runs and scales the control plane, which also protects API availability under load.",
               "Managed node groups create the EC2s and auto scaling group, register and recycle nodes.",
               "Smoother Kubernetes upgrades, and no tokens exported with kops export kubeconfig.",
               "The Manager cluster already ran on EKS."],
              ["AWS load balancers for ingress become possible instead of self-managed nginx."])),
    ("kuberos-kubeconfig", "decision", "2021-06-24", "Kubeconfig credentials come from our Kuberos fork, via Auth0 and GitHub",
     ["kuberos", "oidc", "auth0", "kubeconfig"],
     decision("Developers need Kubernetes credentials for the EKS cluster, and GitHub is the login they all have.",
              "Authenticate with OIDC, Auth0 as broker and GitHub as identity provider: Auth0's login rules check "
              "membership of the ministryofjustice organisation and put the user's GitHub teams into the ID token "
              "as claims, which RBAC maps to namespaces. Credentials are issued by cloud-platform-kuberos, our "
              "maintained fork of the unmaintained Kuberos.",
              ["Kuberos is small enough to keep up to date ourselves; everything happens server-side."],
              alternatives=[("Gangway", "no release in two years"),
                            ("kubelogin", "every user would have to install it and hold the client secret"),
                            ("kubehook", "no webhook authentication on EKS"),
                            ("dex", "an OIDC broker with no web page for issuing credentials")])),
    ("node-instance-types", "decision", "2021-09-01",
     "Worker nodes are memory-optimised r5 instances, Prometheus on its own node group",
     ["nodes", "ec2", "node-groups", "prometheus"],
     decision("Memory has always been what runs out first on our nodes, and the AWS CNI limits pods per node by the "
              "ENIs and IP addresses an instance type supports.",
              "The main node group uses r5.xlarge (4 vCPU, 32 GB), with r5.2xlarge and r5a.xlarge as fallbacks when "
              "an availability zone runs short. Prometheus has its own group of two large nodes (r5.2xlarge, "
              "fallback r4.2xlarge) in a single availability zone so both can attach the EBS volume holding its data.",
              ["Few node groups keep operations light.",
               "r5 instances are Nitro-based, which IP prefixes (AWS CNI 1.9.0) need for higher pod density."],
              ["ARM instance ranges were left for later because images would need cross-compiling."])),
    ("aws-cni-calico", "decision", "2021-06-07", "Pod networking on the AWS VPC CNI, Calico only for network policy",
     ["cni", "calico", "networkpolicy", "vpc"],
     decision("The EKS cluster needs a pod network, and tenants must be isolated from each other by network policy.",
              "Use the AWS VPC CNI, so each pod takes an IP address from the VPC and traffic is routed natively, and "
              "install Calico (with Typha caching its API calls) only to enforce Kubernetes NetworkPolicy.",
              ["It is EKS's default, supported by AWS and performs well.",
               "Larger instances to live with the per-node IP limit cost about 17% ($8k) more, likely less than the "
               "engineering time full Calico networking would take."],
              alternatives=[("full Calico networking", "no AWS support, a custom node image that EKS changes would "
                             "keep breaking, and nodes recycled to install it"),
                            ("security groups for pods", "left for later, for defence in depth around RDS")])),
    ("ssm-node-access", "decision", "2021-09-02", "Shell access to worker nodes goes through SSM Session Manager, no bastion",
     ["ssm", "bastion", "nodes", "ssh"],
     decision("Engineers occasionally need a terminal on an EKS worker node.",
              "Use AWS Systems Manager Session Manager, installed as a daemonset, instead of SSH through a bastion "
              "host; plain ssh/scp can still be tunnelled through an SSM session.",
              ["Access uses the engineer's own AWS credentials, normally with 2FA, and ends when they leave.",
               "Every terminal command is logged for audit; it is an EKS best practice."],
              ["The agent needs hostNetwork and privileged pods.",
               "It cannot help with a node that fails to boot or join the cluster."],
              [("SSH through a bastion", "it relies on a shared SSH key, an unacceptable shared credential")])),
    ("irsa", "decision", "2021-07-21", "Pods get AWS permissions through IRSA; the node role is blocked",
     ["irsa", "iam", "kiam", "service-accounts"],
     decision("On the kOps cluster, kiam and kube2iam handed AWS roles to pods.",
              "On EKS, pods assume roles through IAM Roles for Service Accounts (kube2iam is not installed at all), "
              "and a Calico GlobalNetworkPolicy blocks pods from the instance metadata endpoint so they cannot use "
              "the node's own role.",
              ["kiam and kube2iam need a daemonset and node credentials able to assume any role.",
               "A pod starting before kiam was up went unprotected, and kube2iam needs a --default-role set.",
               "With IRSA, root on a node no longer yields every role."])),
    ("opensearch-logs", "decision", "2024-11-11", "Application logs are shipped by Fluent Bit to AWS OpenSearch",
     ["opensearch", "logging", "fluent-bit", "elasticsearch"],
     decision("Central Elasticsearch was costly because of its memory use, the platform team itself rarely used it "
              "(kubectl logs does most of the job), every team could read every other team's logs, and the log "
              "structure could not be parsed, so teams had to pick JSON out of a single field.",
              "Ship every pod's stdout with Fluent Bit to AWS OpenSearch (the app-logs dashboards), under an ISM "
              "lifecycle policy; the old Elasticsearch cluster, which kept 30 days, is being retired. Control plane "
              "and AWS component logs go to CloudWatch.",
              ["Moving to EKS meant rebuilding log shipping anyway.",
               "Security investigations need a fast search across the platform's logs and 13 months of retention."],
              ["Loki and CloudWatch Logs stay candidates for app logs; structured JSON logs are a frequent request."])),
    ("app-domains", "decision", "2021-07-07",
     "Tenant apps use *.apps.cloud-platform.service.justice.gov.uk, with no cluster name",
     ["dns", "domains", "certificates", "external-dns"],
     decision("Teams used *.apps.live-1.cloud-platform.service.justice.gov.uk for dev and staging because our "
              "wildcard certificate covers it, but the EKS cluster is not called live-1, and during a migration "
              "external-dns shifts traffic between clusters with weighted records.",
              "Deprecate the live-1 wildcard for *.apps.cloud-platform.service.justice.gov.uk. Cluster-specific names "
              "(such as live-blue and live-green) exist only around migrations. Production services use their own "
              "domain: myapp.service.justice.gov.uk before beta assessment, myapp.service.gov.uk after it.",
              ["A cluster's name in a hostname is confusing and would change at every migration.",
               "The cloud-platform label lets name servers be delegated per platform, per the MoJ naming standards."],
              ["Teams were given several months to drop live-1 from their hostnames."])),
    ("managed-prometheus", "decision", "2024-11-11", "Evaluate Amazon Managed Prometheus in place of our own Prometheus",
     ["prometheus", "amp", "thanos", "monitoring"],
     decision("Prometheus (kube-prometheus-stack, in use since 2017) watches tenant containers, tenant AWS resources "
              "and the cluster; it keeps 24 hours of data and Thanos keeps a year. It needs its own big-memory node "
              "group and only scales upwards.",
              "Proposed: a forwarding Prometheus in the cluster remote-writes everything to AMP, which keeps 150 "
              "days, with AMP's Alertmanager-compatible alerting sent through SNS; Grafana stays self-managed. "
              "Meanwhile our Prometheus now runs highly available with 3 replicas.",
              ["AMP scales and spreads across AZs by itself; the config stays Prometheus syntax, so lock-in is low."],
              ["Still open: getting tenants' PrometheusRules into AMP, showing users their alerts, AMP not yet in "
               "the London region, and cost ($0.35 per 10M samples)."],
              [("DataDog, Splunk or Honeycomb", "$10k-$160k, log data off-shored and every user's config to migrate"),
               ("sharding our Prometheus", "new scaling thresholds would come back as we grow")],
              status="proposed")),
    ("manager-cluster", "decision", "2022-01-07", "Concourse runs on a separate Manager cluster",
     ["manager-cluster", "concourse", "thanos", "ci"],
     decision("Concourse deploys the platform's infrastructure, EKS included.",
              "Keep a Manager cluster, apart from the clusters running tenant workloads, for Concourse, the Thanos "
              "compactor and the how-out-of-date-are-we report generators.",
              ["If live is damaged, the tool that reapplies it must not run on it.",
               "Big changes such as Kubernetes upgrades are tried on Manager, which runs realistic workloads, "
               "before live.",
               "CI/CD needs wide permissions and admin-only access; keeping it away from public apps shrinks the "
               "attack surface."])),
    ("tls-versions", "decision", "2022-07-04", "Ingress controllers accept TLS 1.2 and 1.3 only",
     ["tls", "ingress", "security"],
     decision("The old ingress controllers still accepted TLS 1.0 and 1.1 for end users stuck on old browsers; "
              "health checks (ITHCs) kept flagging it, NCSC advises against them, and device refreshes have since "
              "put users on modern browsers.",
              "The new ingress controllers drop TLS 1.0 and 1.1 and add TLS 1.3.",
              ["Better security, in line with NCSC guidance."],
              ["Teams move non-production workloads first, test, then production, in case some user still has an "
               "old browser."])),
    ("prod-nonprod-clusters", "decision", "2022-09-16", "Production and non-production namespaces go to separate clusters",
     ["multi-cluster", "live", "live-2", "cluster"],
     decision("After the kOps cluster was switched off in April 2022 the EKS cluster grew from 409 to 457 "
              "namespaces; one cluster is a single point of failure and makes each upgrade a risk for everyone. It "
              "is still far from Kubernetes' large-cluster limits.",
              "Adopt multi-cluster, starting with a split by environment type: production stays on live, "
              "non-production moves to a second cluster (live-2) that is run with production care but may be "
              "smaller or switched off out of hours. Users choose their environment themselves at first.",
              ["Kubernetes upgrades can be tried on non-production workloads before production.",
               "A smaller blast radius and fewer shared points of failure such as ingress controllers."],
              ["Higher running cost, less efficient use of nodes, more clusters to manage."])),
    ("network-firewall", "decision", "2025-09-16", "All traffic in and out of the cluster VPC passes AWS Network Firewall",
     ["network-firewall", "egress", "vpc", "security"],
     decision("We must inspect and control traffic leaving and entering the EKS VPCs (block malicious destinations, "
              "audit outbound connections, spot odd protocols); a central egress VPC failed because test clusters "
              "use overlapping CIDRs.",
              "Deploy AWS Network Firewall inside the Cloud Platform VPC: outbound traffic passes firewall subnets "
              "before the NAT gateway, inbound traffic is inspected before it reaches workloads, rule groups (domain "
              "allowlists, port rules, intrusion detection) are managed in code, and logs go to CloudWatch. The AWS "
              "managed threat groups AttackInfrastructure, MalwareDomains and BotNetCommandAndControlDomains (strict "
              "order) are switched on.",
              ["Inspection and control now, without redesigning the network."],
              ["Inspection may add latency and needs performance testing.",
               "Threat rules can raise false positives, so we need a tuning process."])),
    ("github-actions", "decision", "2026-01-02", "Deployment pipelines move from Concourse to GitHub Actions",
     ["github-actions", "concourse", "pipelines", "modernisation-platform"],
     decision("Every deployment pipeline runs on a self-managed Concourse in the management cluster, and the "
              "platform is moving to the Modernisation Platform, whose pipelines are GitHub Actions.",
              "Use GitHub Actions for deployment pipelines, reusing the Modernisation Platform's pipelines where "
              "possible and writing new actions in our repositories otherwise.",
              ["One set of tooling with the Modernisation Platform."],
              ["The Concourse pipelines and the management cluster are decommissioned once the move is done."])),
    ("private-endpoint", "decision", "2026-04-02", "The EKS API endpoint is private; engineers reach it over VPN",
     ["eks", "endpoint", "vpn", "gitops"],
     decision("The cluster's API endpoint was public; authentication is strong, but anything on the internet is a "
              "risk, and AWS recommends private endpoints.",
              "Make the endpoint private and refuse external connections; engineers come in through the Global "
              "Protect VPN, with a bastion reached over SSM (the Modernisation Platform bastion module) as break glass.",
              ["Better security, and it fits GitOps and keeping every image in ECR."],
              ["External CI systems can no longer reach the cluster, so deployments move to GitOps (possibly ArgoCD)."])),
    ("karpenter", "decision", "2026-04-21", "Container Platform nodes are scaled by Karpenter",
     ["karpenter", "autoscaling", "nodes"],
     decision("The new Container Platform needs node scaling; Karpenter was installed and compared with Cluster "
              "Autoscaler and EKS Auto Mode on the Modernisation Platform (AWS), and the tests went well.",
              "Karpenter is the primary scaler: it reacts to events by calling the EC2 Fleet API directly and picks "
              "instance types itself, so user workloads no longer run in node groups.",
              ["Faster scaling than on Cloud Platform, and more aggressive node consolidation."],
              ["We need an agreed list of allowed instance types, tuning and testing, and to follow Karpenter's threat "
               "model.", "Cluster Autoscaler could still run beside it if ever needed."])),
    ("business-unit-clusters", "decision", "2026-06-05",
     "Each business unit gets its own live and non-live cluster and AWS accounts",
     ["multi-cluster", "business-unit", "aws-accounts", "modernisation-platform"],
     decision("Splitting live from non-live still left noisy neighbours and threats crossing business units; the "
              "single Cloud Platform AWS account keeps hitting AWS limits, and MoJ accounts are now provisioned "
              "through the Modernisation Platform.",
              "Every business unit gets a non-live and a live cluster, built from the same code, each in its own "
              "Modernisation Platform account; tenants' AWS resources are created in that cluster account too.",
              ["A far smaller blast radius; AWS recommends keeping apps next to their resources."],
              ["Non-live clusters are upgraded before live ones.",
               "Cluster IPs are NATed to save address space; access goes through AWS Identity Center.",
               "We inherit the Modernisation Platform's security baselines, SSO and pipelines."])),
    # ---- constraints ----------------------------------------------------------------------------------------
    ("no-lambda", "constraint", "2022-09-22", "No AWS Lambda or functions-as-a-service for tenants",
     ["lambda", "serverless", "faas"],
     constraint("Tenants cannot use AWS Lambda or other functions-as-a-service on the platform: services run as "
                "stateless, twelve-factor containers. DynamoDB, SNS, SQS and S3 are offered through our Terraform "
                "modules.",
                ["Users have read-only AWS access and every infrastructure change waits for a platform engineer's "
                 "review in the environments repository, so iterating on function code would be miserable.",
                 "Functions would get none of the standard alerting, monitoring and logging; there is little cost "
                 "saving since small idle services are cheap on the cluster."],
                severity="medium", kind="policy",
                workarounds=["We review FaaS on Kubernetes now and then (OpenFaaS, Knative, AWS Controllers for "
                             "Kubernetes)."])),
    ("latest-module-versions", "constraint", "2020-03-23", "Every namespace uses the latest version of our Terraform modules",
     ["terraform", "modules", "upgrades"],
     constraint("When we release a new version of one of our Terraform modules, we upgrade it in every namespace "
                "that uses it, straight away.",
                ["Namespaces left several versions behind had no clear upgrade path, and by the time someone tried, "
                 "the knowledge of the change was gone."],
                severity="medium", kind="policy")),
    ("logs-visible-org-wide", "constraint", "2020-03-24", "Any org member can read every team's logs: keep personal data out",
     ["logging", "kibana", "personal-data", "oauth2-proxy"],
     constraint("The log dashboards sit behind an OIDC proxy and Auth0 that let in any member of the "
                "ministryofjustice GitHub organisation, so every team's logs are readable by all; never write "
                "sensitive or personal data to logs.",
                ["A secret or a citizen's details in a log line can be read across the department."],
                severity="high", kind="policy")),
    ("ecr-only-images", "constraint", "2026-04-02", "Container Platform runs only images stored in its own ECR",
     ["ecr", "images", "container-platform"],
     constraint("On the Container Platform every user image must be hosted in the platform's ECR; images pulled from "
                "other registries are not allowed.",
                ["Images can be scanned, and vulnerable ones blocked, before they are deployed, and redeployed after "
                 "a disaster.", "Teams have to change how they deploy (GitOps patterns)."],
                severity="high", kind="policy")),
    ("cidr-ranges", "constraint", "2026-02-13", "New clusters must use the allocated 10.41.0.0/16 and 10.195.0.0/16 ranges",
     ["cidr", "networking", "transit-gateway"],
     constraint("The new live and non-live clusters use only 10.41.0.0/16 and 10.195.0.0/16, allocated by MoJ "
                "Networking and recorded in the MoJ IPAM.",
                ["Only a unique RFC 1918 range can route to the rest of MoJ through the Transit Gateway."],
                severity="high", kind="technical")),
    # ---- preferences ----------------------------------------------------------------------------------------
    ("cluster-names", "preference", "2018-06-05", "Cluster names: live-N for clusters with users, test-N for ours",
     ["naming", "cluster", "live"],
     preference("cluster naming", "A cluster that hosts users is live-{n}; one only the platform team uses is "
                "test-{n}; numbers go up in sequence, and names never describe a purpose or status (no sandbox, "
                "perf-test or non-production).",
                "The name tells at a glance whether users are on a cluster; what each one is for is kept in one "
                "central list.")),
    ("snake-case", "preference", "2020-08-17", "Variables in Terraform and YAML are snake_case",
     ["terraform", "yaml", "variables"],
     preference("variable names", "Always write variable names in snake_case (repo_name, never repo-name) in "
                "Terraform, YAML files and templates.",
                "A script in one repository and a template in another must agree on the name.", strength="strong")),
    ("terraform-lock-file", "preference", "2025-11-14",
     "Only commit .terraform.lock.hcl when providers change, locked for linux_amd64",
     ["terraform", "providers", "lock-file"],
     preference("provider lock files", "Leave .terraform.lock.hcl changes out of commits unless you changed a "
                "provider version; when you did, regenerate it with 'terraform providers lock -platform=linux_amd64' "
                "before adding it.",
                "Our Macs are arm64 and the pipeline amd64, so every terraform init rewrites the hashes and the diff "
                "misleads.", strength="strong")),
    ("support-hammer", "preference", "2025-10-06", "The Hammer runs support for the day and takes no sprint tickets",
     ["support", "rota", "reviews"],
     preference("support rota", "Each working day one engineer is the Hammer: they make sure questions in "
                "#ask-cloud-platform get handled and users' environments PRs get reviewed (not answering everything "
                "alone), with a secondary on support tickets and low-priority alarms. Infrastructure PRs need two "
                "reviews, other PRs one.",
                "Switching between sprint work and support leaves questions unanswered and PRs blocked.")),
    # ---- tech debt ------------------------------------------------------------------------------------------
    ("fargate-blocked", "tech_debt", "2022-01-21", "Moving workloads to EKS Fargate is stalled",
     ["fargate", "eks", "daemonsets"],
     debt("Fargate would cut node operations and isolate pods with Firecracker, but the proposal is incomplete.",
          "Blockers: a quota of 500 Fargate pods per region per account against about 2000 pods; no daemonsets, so "
          "fluent-bit and prometheus-node-exporter need replacements; no EBS, so Prometheus stays on nodes; unknowns "
          "about nginx ingress and how users check their deployments.",
          "low", ["Use AWS's managed Fluent Bit for Fargate and scrape cAdvisor for pod metrics.",
                  "Separate AWS accounts per cluster would settle the pod quota; meanwhile consider Spot instances."])),
    ("core-components-split", "tech_debt", "2024-03-04", "Split cluster components into EKS, core and optional layers",
     ["terraform", "components", "gatekeeper"],
     debt("Since Kubernetes 1.25 removed PodSecurityPolicy (replaced by Gatekeeper mutations), the components layer is "
          "a web of dependencies that are not needed, some declared in old, non-standard ways.",
          "Incomplete: the split must be planned, tried on test clusters, and the Terraform state moved to new S3 "
          "locations safely.",
          "medium", ["Add a 'core' layer between EKS and the optional components; decide component by component "
                     "(Prometheus CRDs are a hard dependency of many).", "Apply to live, live-2 and manager."])),
    # ---- runbooks -------------------------------------------------------------------------------------------
    ("state-lock", "runbook", "2026-05-11", "Clear a stale Terraform state lock left on a namespace",
     ["terraform", "dynamodb", "state-lock", "pipeline"],
     runbook("The environments apply pipeline keeps failing on the same namespace with 'Error acquiring the state "
             "lock: ConditionalCheckFailedException': an earlier run died without releasing its lock.",
             ["The lock records are items of the DynamoDB table cloud-platform-environments-terraform-lock, in "
              "eu-west-1 (not eu-west-2).",
              "Delete both LockID items of the namespace, the terraform.tfstate key and its -md5 twin under "
              "cloud-platform-terraform-state/cloud-platform-environments/<cluster>/<namespace>/, with aws dynamodb "
              "delete-item or in the console (filter LockID contains the namespace name).",
              "Alternatively run terraform force-unlock with the LockID."],
             "The next pipeline run takes the lock again (Terraform recreates the missing records) and applies.")),
    ("node-group-recycle", "runbook", "2025-11-14", "Roll every node onto a new node group without an outage",
     ["node-groups", "eks", "launch-template", "drain"],
     runbook("A change to a node group, its instance types or its launch template (user data, kubelet settings, docker "
             "credentials) forces every node of the group to be replaced.",
             ["Never let Terraform apply it in place: it removes all the old nodes at once.",
              "Add a new node group, usually suffixed with the date, with low minimum and desired counts; to recycle "
              "all nodes change both default and monitoring.",
              "Re-run infrastructure-account/terraform-apply so the modsec audit log cluster maps the new node role.",
              "Drain the old group with 'cloud-platform pipeline cordon-and-drain --cluster-name <c> --node-group "
              "<old>' (5 minutes per node, about an hour per 12 nodes); manager's default-ng must be drained from "
              "your own terminal after suspending its autoscaling.",
              "Across clusters: manager, then live-2, then live; monitoring before default.",
              "Delete the old group in a PR, re-run terraform-apply, then run the integration tests."],
             "watch kubectl get nodes --sort-by=.metadata.creationTimestamp shows every node Ready and none "
             "Ready,SchedulingDisabled.",
             ["Bringing up too many new nodes at once starves pods of IP addresses."])),
    ("eks-upgrade", "runbook", "2026-07-23", "Upgrade the Kubernetes version of an EKS cluster",
     ["eks", "upgrade", "kubernetes", "node-groups"],
     runbook("A new Kubernetes/EKS version is due on live, live-2 and manager.",
             ["Read the release notes; scan for deprecated APIs with kubent and pluto (and EKS Upgrade Insights) and "
              "tell the teams affected.",
              "Create the step-by-step issues with the k8s-upgrade-tickets workflow of the cloud-platform repo.",
              "Announce it in #ask-cloud-platform and #cloud-platform-update; pause bootstrap, infrastructure-live, "
              "infrastructure-live-2 and infrastructure-manager.",
              "Bump the version in cluster.tf and run a plan only: never terraform apply the upgrade.",
              "Scale coredns up by a couple of pods and the descheduler to 0.",
              "Upgrade the control plane in the AWS console (about 10 minutes), start the stuck-evictions monitoring "
              "pipeline, then upgrade each node group with a rolling update: monitoring first, default last.",
              "Merge the version PR; unpause infrastructure-live-2, -manager, -live, then bootstrap; restore coredns "
              "and the descheduler; bump kubectl in cloud-platform-cli and the tools image."],
             "Every infrastructure pipeline shows no Terraform changes and all nodes report the new version.",
             ["Without the eviction monitoring pipeline a node group upgrade fails and rolls back."])),
    ("leaked-aws-keys", "runbook", "2025-10-07", "Respond to a leaked AWS access key",
     ["aws", "iam", "credentials", "cloudtrail"],
     runbook("An access key of our AWS account has been exposed, for example pushed to a public repository.",
             ["Find the IAM user in the console, searching by access key or user name (or aws iam list-users with a "
              "query).",
              "Delete the user; from the CLI, remove its keys and groups first.",
              "Tell the owning team in their Slack channel and mention the user; if the team is unknown, message "
              "privately.",
              "Recreate the user and key through Terraform, as in the key rotation runbook.",
              "Check CloudTrail event history, filtered by the access key, for anything done since the leak."],
             "The old key no longer exists and CloudTrail shows no unexplained activity.")),
    ("git-crypt-rotate", "runbook", "2025-11-14", "Add someone to git-crypt or rotate its key",
     ["git-crypt", "gpg", "secrets"],
     runbook("A new engineer must decrypt the secrets committed to a repository, or the symmetric key must be "
             "rotated.",
             ["Adding: import their public GPG key, trust it ultimately, and on a new branch run git-crypt "
              "add-gpg-user <email>; open a PR.",
              "Rotating: git-crypt unlock; save the users' key ids from .git-crypt/keys/default/0/*.gpg and the "
              "encrypted paths from git-crypt status -e.",
              "Remove .git-crypt and .git/git-crypt, run git-crypt init, fetch every user's key and add them back "
              "with add-gpg-user -n --trusted.",
              "Change every secret in the encrypted files (the old key could read them), git add them and commit."],
             "git show :<path> (or HEAD:<path>) prints binary starting with GITCRYPT, not plain text.",
             ["Lock the repository before checking out an older commit, or the working copy breaks."])),
    ("incident-declare", "runbook", "2025-08-12", "Declare and run an incident",
     ["incident", "slack", "on-call"],
     runbook("Something unplanned hurts end users or service teams, degrades a service, or raises the risk to "
             "production (such as losing one of three control plane nodes).",
             ["Post in #cloud-platform: 'I am declaring an incident because [reason]. The impact is that [impact].' "
              "in exactly those words, so scripts can find it; its thread is the incident thread.",
              "Fill the two required roles, Incident Lead ('I am the incident lead') and Scribe ('I am the scribe'); "
              "add a communications lead when users need updates in #ask-cloud-platform and #cloud-platform-update.",
              "For a security breach also raise a ticket on the Technology Portal.",
              "The lead closes it with 'I am declaring this incident resolved because ...'.",
              "Publish a report in the incident log and a runbook for the fix; a blameless post-mortem is optional."],
             "The report is in the incident log and the users who were told about it know it is over.")),
    ("block-ip", "runbook", "2026-06-01", "Block a hostile IP address at the public subnets' network ACL",
     ["nacl", "vpc", "security", "ddos"],
     runbook("Traffic from particular public addresses must stop reaching the cluster's load balancer, for example "
             "during an attack.",
             ["In the infrastructure repository, uncomment the placeholder deny rules in public-nacl-rules.tf and set "
              "cidr_block to the address or range.",
              "Give them a rule_number below 100 (e.g. 10) so they win over the default allow-all rule 100; add an "
              "inbound and an outbound rule.",
              "Raise a PR and merge it; the infrastructure pipeline creates the rules.",
              "Decide when to lift the block, following the SOC's advice."],
             "The public network ACL lists the deny rules, and OpenSearch (index live_kubernetes_ingress-*, field "
             "log_processed.remote_addr) shows no more requests from the address.")),
    ("cert-manager-txt", "runbook", "2025-11-14", "cert-manager ACME challenge fails with Route53 InvalidChangeBatch",
     ["cert-manager", "route53", "acme", "certificates"],
     runbook("A 'Cert-Manager ACME Challenge Failed: Route53 InvalidChangeBatch' alert arrives in the low-priority "
             "alerts channel.",
             ["Confirm with stern cert --include failed and kubectl get events -n <namespace>: the _acme-challenge "
              "TXT record 'cannot be created because a non multivalue answer rrset exists'.",
              "In the AWS console, open Route53, find the domain and delete the leftover _acme-challenge TXT record."],
             "The challenge passes and the certificate is issued.",
             ["Left alone, the certificate cannot renew and the ingress stops working when it expires."])),
    ("velero-restore", "runbook", "2025-07-28", "Restore a deleted namespace or resource from Velero backups",
     ["velero", "backup", "restore", "disaster-recovery"],
     runbook("A namespace or resource was deleted by mistake, an upgrade left the cluster unrecoverable, or an EBS "
             "volume was lost or corrupted.",
             ["velero get backups: the velero-allnamespacebackup schedule runs every 3 hours and covers every "
              "namespace plus the EBS volumes of StatefulSets; backups stay 30 days in S3.",
              "Restore only what you need: velero restore create --from-backup <backup> --include-namespaces <ns> "
              "(or --include-resource <kind>).",
              "Before risky work, take a one-off copy: velero backup create <name> --include-namespaces <ns>."],
             "kubectl get pods -n <ns> shows the restored workloads running.",
             ["Velero does not back up etcd; that needs its own backup."])),
]

FRESH_QUESTIONS = [
    # paraphrase: the need in other words than the title
    ("paraphrase", "why did we stop running our own elk stack for logs?", ["managed-elasticsearch"]),
    ("paraphrase", "what replaced jenkins for the platform team's builds back in 2018?", ["concourse-ci"]),
    ("paraphrase", "how do people log in to grafana, the cluster and the other tools?", ["github-identity"]),
    ("paraphrase", "why don't we just let ecr expire old images automatically?", ["ecr-image-alerts"]),
    ("paraphrase", "how do we stop two teams claiming the same hostname?", ["opa-policies"]),
    ("paraphrase", "why was everything, dev staging and prod, originally on one cluster?", ["single-cluster"]),
    ("paraphrase", "why can't each namespace have its own nginx controller and load balancer?", ["shared-ingress"]),
    ("paraphrase", "how does a service team ask for a new environment on the platform?", ["namespaces-repo"]),
    ("paraphrase", "why did we move off kops?", ["eks-migration"]),
    ("paraphrase", "how do developers get a kubeconfig for the clsuter?", ["kuberos-kubeconfig"]),
    ("paraphrase", "which ec2 family do the worker nodes use and why?", ["node-instance-types"]),
    ("paraphrase", "do pods get real vpc ip addresses or an overlay network?", ["aws-cni-calico"]),
    ("paraphrase", "how do I get a shell on a worker node?", ["ssm-node-access"]),
    ("paraphrase", "how should my pod get permission to read an s3 bucket?", ["irsa"]),
    ("paraphrase", "where can a team search its app's output now that elasticsearch is going away?", ["opensearch-logs"]),
    ("paraphrase", "what hostname should a team use for its staging app?", ["app-domains"]),
    ("paraphrase", "are we going to keep hosting prometheus ourselfs?", ["managed-prometheus"]),
    ("paraphrase", "why does concourse sit on a cluster of its own?", ["manager-cluster"]),
    ("paraphrase", "which tls versions do the new ingress controllers accept?", ["tls-versions"]),
    ("paraphrase", "why are non-prod namespaces on a different cluster from prod?", ["prod-nonprod-clusters"]),
    ("paraphrase", "how do we inspect outbound traffic leaving the cluster vpc?", ["network-firewall"]),
    ("paraphrase", "can I still reach the kubernetes api from home without the vpn?", ["private-endpoint"]),
    ("paraphrase", "what adds and removes nodes on the new container platform?", ["karpenter"]),
    ("paraphrase", "will every business unit get a cluster of its own?", ["business-unit-clusters"]),
    ("paraphrase", "can my team deploy a lambda function on cloud platform?", ["no-lambda"]),
    ("paraphrase", "is it ok to leave my namespace on an older version of the rds module?", ["latest-module-versions"]),
    ("paraphrase", "who can see the logs my app writes?", ["logs-visible-org-wide"]),
    ("paraphrase", "can we pull images straight from docker hub on the container platform?", ["ecr-only-images"]),
    ("paraphrase", "what ip range should the new clusters' vpc use?", ["cidr-ranges"]),
    ("paraphrase", "kebab-case or underscores for terraform variable names?", ["snake-case"]),
    ("paraphrase", "should I commit the lock file that terraform init just changed?", ["terraform-lock-file"]),
    ("paraphrase", "what does whoever is on support do each day?", ["support-hammer"]),
    ("paraphrase", "why aren't we running pods on fargate yet?", ["fargate-blocked"]),
    ("paraphrase", "why is the components terraform layer so tangled?", ["core-components-split"]),
    ("paraphrase", "how do we swap the launch template on the nodes safely?", ["node-group-recycle"]),
    ("paraphrase", "what are the steps to bump the kubernetes version on live?", ["eks-upgrade"]),
    ("paraphrase", "how do I give a new joiner access to the encrypted secrets in the infra repo?", ["git-crypt-rotate"]),
    ("paraphrase", "how do we officially start an incident?", ["incident-declare"]),
    ("paraphrase", "how do I stop an attacker's address from hitting the cluster?", ["block-ip"]),
    ("paraphrase", "a certificate challenge keeps failing with a route53 error", ["cert-manager-txt"]),
    ("paraphrase", "how do I get back a namespace someone deleted by accident?", ["velero-restore"]),
    # detail: one fact inside a memory
    ("detail", "how many images in an ecr repo before the red alert fires?", ["ecr-image-alerts"]),
    ("detail", "how big had the nginx config got when the ingress pods started crash looping?", ["shared-ingress"]),
    ("detail", "which region is the terraform lock table in?", ["state-lock"]),
    ("detail", "how long does the cordon-and-drain pipeline wait between nodes?", ["node-group-recycle"]),
    ("detail", "which node group do we upgrade last?", ["eks-upgrade"]),
    ("detail", "how long does the control plane upgrade usually take?", ["eks-upgrade"]),
    ("detail", "how often does the velero schedule run and how long are backups kept?", ["velero-restore"]),
    ("detail", "what rule number should a nacl deny rule get?", ["block-ip"]),
    ("detail", "what exact sentence do we post to declare an incident?", ["incident-declare"]),
    ("detail", "how long does prometheus keep metrics locally, and where does the year of history live?",
     ["managed-prometheus"]),
    ("detail", "how many fargate pods does aws allow per region?", ["fargate-blocked"]),
    ("detail", "how much more did the cni choice cost us in instances?", ["aws-cni-calico"]),
    ("detail", "why didn't we pick gangway or kubelogin?", ["kuberos-kubeconfig"]),
    ("detail", "which threat detection rule groups are on in the firewall?", ["network-firewall"]),
    ("detail", "what domain does a service move to once it passes beta assessment?", ["app-domains"]),
    ("detail", "how many namespaces were on the eks cluster when we decided to split it?", ["prod-nonprod-clusters"]),
    ("detail", "which github org do you need to be in to see the logs?", ["logs-visible-org-wide"]),
    ("detail", "what platform flag do I pass when locking terraform providers?", ["terraform-lock-file"]),
    ("detail", "how many reviews does an infrastructure PR need?", ["support-hammer"]),
    ("detail", "what replaced kiam on the new cluster?", ["irsa"]),
    ("detail", "what did the old ecr lifecycle policy keep, 100 images?", ["ecr-image-alerts"]),
    ("detail", "what instance type is the main node group on?", ["node-instance-types"]),
    # task: a request whose memory matters
    ("task", "I need to add a policy that rejects ingresses without a tls section", ["opa-policies"]),
    ("task", "write the terraform for a new team's namespace with an rds instance", ["namespaces-repo"]),
    ("task", "set up a prometheus alert for ecr repositories filling up", ["ecr-image-alerts"]),
    ("task", "I want to turn on modsecurity for my team's ingress", ["shared-ingress"]),
    ("task", "bump the rds module to v9 across all namespaces", ["latest-module-versions"]),
    ("task", "change the user data script on the default node group", ["node-group-recycle"]),
    ("task", "upgrade the cluster to kubernetes 1.34", ["eks-upgrade"]),
    ("task", "the build-environments pipeline fails for hmpps-book-video-link-prod with ConditionalCheckFailedException",
     ["state-lock"]),
    ("task", "the apply pipeline can't get the lock for one namespace, fix it", ["state-lock"]),
    ("task", "rotate the git-crypt key, an engineer just left the team", ["git-crypt-rotate"]),
    ("task", "our team wants a scheduled python function on aws lambda, help me set it up in our namespace",
     ["no-lambda"]),
    ("task", "create the vpc for a new cluster in the modernisation platform account",
     ["cidr-ranges", "business-unit-clusters"]),
    ("task", "set up our app's deploys to the new container platform from our own ci",
     ["private-endpoint", "ecr-only-images"]),
    ("task", "add the user's email address to every request log line in our middleware", ["logs-visible-org-wide"]),
    ("task", "we're getting hammered from one address, cut it off", ["block-ip"]),
    ("task", "prometheus is down on live, get the team organised", ["incident-declare"]),
    ("task", "someone pushed an aws secret key to a public repo, what do I do?", ["leaked-aws-keys"]),
    ("task", "add a wildcard dns name for our dev environment on the new cluster", ["app-domains"]),
    ("task", "move our deploy job off the concourse pipeline", ["github-actions"]),
    ("task", "write a karpenter nodepool for the new platform", ["karpenter"]),
    ("task", "give me an ssh config for jumping onto eks nodes", ["ssm-node-access"]),
    ("task", "the cert on our ingress is about to expire and renewal keeps failing", ["cert-manager-txt"]),
    # short: two or three words
    ("short", "kops vs eks", ["eks-migration"]),
    ("short", "kuberos", ["kuberos-kubeconfig"]),
    ("short", "irsa?", ["irsa"]),
    ("short", "tls 1.0", ["tls-versions"]),
    ("short", "state lock", ["state-lock"]),
    ("short", "velero", ["velero-restore"]),
    ("short", "git-crypt", ["git-crypt-rotate"]),
    ("short", "hammer rota", ["support-hammer"]),
    ("short", "amp prometheus", ["managed-prometheus"]),
    ("short", "cluster naming", ["cluster-names"]),
    ("short", "network firewall", ["network-firewall"]),
]

FRESH_DOMAIN = ("kubernetes", "k8s", "cluster", "clusters", "eks", "kops", "namespace", "namespaces", "terraform",
                "aws", "ecr", "ingress", "nginx", "helm", "pod", "pods", "node", "nodes", "prometheus", "grafana",
                "alertmanager", "opensearch", "elasticsearch", "logs", "concourse", "pipeline", "auth0", "dns",
                "route53", "certificate", "tls", "vpc", "iam", "rds", "s3", "docker", "container", "image", "backup",
                "incident", "kubectl", "firewall", "karpenter", "cloud", "platform")
