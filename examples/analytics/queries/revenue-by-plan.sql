select properties.plan as plan, sum(toFloat(properties.amount)) as revenue
from events
where event = 'purchase' and timestamp > now() - interval 30 day
group by plan
order by revenue desc
